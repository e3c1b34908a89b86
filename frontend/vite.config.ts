import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// The FastAPI backend during development; in production it serves dist/ itself.
const backend = "http://127.0.0.1:8000";

export default defineConfig({
  base: "/",
  plugins: [react()],
  server: {
    proxy: {
      // ws: the live channel's WebSocket (/api/v1/clusters/{name}/live) goes through the proxy too.
      // changeOrigin: the backend sees its own address as Host, which GET /api/v1/local-token requires.
      "/api": { target: backend, ws: true, changeOrigin: true },
      "/healthz": backend,
      "/readyz": backend,
      // So the "API docs" link works under `npm run dev` too.
      "/docs": backend,
      "/openapi.json": backend,
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
