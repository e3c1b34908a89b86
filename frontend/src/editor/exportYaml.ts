import { toYaml, type DagDocument } from "./dagDocument";

/** Downloads the document as `<name>.yaml`. */
export function exportYaml(doc: DagDocument): void {
  const blob = new Blob([toYaml(doc)], { type: "application/yaml" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = `${doc.name || "application"}.yaml`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}
