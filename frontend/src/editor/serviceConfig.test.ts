// The browser's config checks against the catalogue's own schemas (backend/e3/catalog/config_schemas, read
// as GET /api/v1/catalog/services serves them), with values copied from the backend's
// tests/schemas/test_service_config.py: what each service accepts and refuses, and the API's words.
import { describe, expect, it } from "vitest";

import { configErrors, readConfigSchema, type ConfigSchema } from "./serviceConfig";

const files = import.meta.glob<unknown>("../../../backend/e3/catalog/config_schemas/*.json", { eager: true, import: "default" });
const SCHEMAS: Record<string, ConfigSchema> = Object.fromEntries(
  Object.entries(files).map(([path, raw]) => [path.replace(/^.*\/|\.json$/g, ""), readConfigSchema(raw)]),
);

const errors = (service: string, config: Record<string, string>) =>
  Object.fromEntries(configErrors(service, SCHEMAS[service]!, config, "spec.nodes[0].config").map((e) => [e.field, e]));

const keys = (n: number) => Array(n).fill("k").join(",");
const columns = (n: number) => ["id:int", ...Array.from({ length: n }, (_, i) => `c${i}:text`)].join(",");

// Values as the C code reads them: (service, key, value) accepted ...
const ACCEPTED: [string, string, string][] = [
  ["api_gateway", "keys", "k1"], ["api_gateway", "keys", "k1,k2"], ["api_gateway", "keys", keys(64)],
  ["api_gateway", "rate", "0.5"], ["api_gateway", "rate", "1e6"], ["api_gateway", "burst", "1"],
  ["bayes", "train", "spam:buy now|ham:see you"], ["bayes", "train", " ab :text|c:|"], ["bayes", "alpha", "0.01"],
  ["bm25", "docs", ""], ["bm25", "docs", "d1:the fox| d2:a dog|"], ["bm25", "k1", "0"], ["bm25", "b", "1"],
  ["count", "bits", "64"], ["count", "bits", String(2 ** 34)],
  ["ddos", "window", String(2 ** 26)], ["ddos", "threshold", "-1"],
  ["ema", "alpha", "1"], ["ema", "alpha", ".25"],
  ["flow_monitor", "depth", "32"], ["flow_monitor", "seed", "42"],
  ["ipsec", "key", "000102030405060708090a0b0c0d0e0F"], ["ipsec", "auth_key", "ab".repeat(64)], ["ipsec", "iv", "f".repeat(32)],
  ["knn", "points", "0,0:low|1,1:high"], ["knn", "points", "1.5 -2e3\t.5: a |3,4,5:b|"], ["knn", "k", "1"],
  ["kvs", "max_value", "65530"],
  ["natv4", "rules", ""], ["natv4", "rules", " 10.1.2.3/32>172.16.0.9:8080 , 0.0.0.0/0>1.2.3.4:65535,"],
  ["natv4", "rules", "001.2.3.4/032>5.6.7.8"],
  ["nids", "patterns", "attack,exploit"], ["nids", "patterns", "a\\,b,\\x3b\\\\,GET /"],
  ["spike", "threshold", "0.1"],
  ["sql", "columns", "id:int"], ["sql", "columns", " id : int , name:text,temp:real,"], ["sql", "columns", columns(31)],
];
// ... and refused, with the C code's reason.
const REFUSED: [string, string, string, string][] = [
  ["api_gateway", "keys", "", "no key"], ["api_gateway", "keys", "a,,b", "empty key"],
  ["api_gateway", "keys", "a, b", "a key with a space can never be presented"], ["api_gateway", "keys", keys(65), "more than 64 keys"],
  ["api_gateway", "rate", "0", "rate > 0"], ["api_gateway", "rate", "fast", "not a number"],
  ["api_gateway", "burst", "0", "burst >= 1"], ["api_gateway", "burst", "1.5", "not an integer"],
  ["bayes", "train", "no class", "<class>:<text>"], ["bayes", "train", "a b:x", "a class with a space"],
  ["bayes", "train", "c".repeat(64) + ":x", "class over 63 bytes"],
  ["bm25", "k1", "-0.1", "k1 >= 0"], ["bm25", "b", "1.5", "b <= 1"], ["bm25", "top", "501", "top <= 500"],
  ["count", "bits", "100", "multiple of 64"], ["count", "bits", String(2 ** 34 + 64), "at most 2^34"],
  ["count", "bits", "0x40", "the API reads decimal only"], ["count", "bits", "010", "strtol base 0 would read octal"],
  ["ddos", "threshold", "inf", "finite"],
  ["ema", "alpha", "0", "alpha > 0"], ["ema", "alpha", "1.01", "alpha <= 1"], ["ema", "alpha", "1e-400", "underflow"],
  ["flow_monitor", "depth", "33", "depth <= 32"], ["flow_monitor", "seed", (2n ** 63n).toString(), "overflows a long"],
  ["ipsec", "key", "g".repeat(32), "hex"], ["ipsec", "auth_key", "abc", "even"], ["ipsec", "iv", "0".repeat(30), "32 hex digits"],
  ["knn", "points", "1,2", "needs a label"], ["knn", "points", "1,x:a", "coordinates are numbers"],
  ["knn", "points", Array(65).fill("1").join(",") + ":a", "at most 64"],
  ["kvs", "max_value", "65531", "fits a response"],
  ["natv4", "rules", "10.0.0.0/33>1.2.3.4", "len <= 32"], ["natv4", "rules", "10.0.0.0/8>1.2.3.4:65536", "port"],
  ["nids", "patterns", "a,,b", "empty pattern"], ["nids", "patterns", "\\q", "bad escape"],
  ["spike", "threshold", "0", "threshold > 0"],
  ["sql", "columns", "name:text,id:int", "the key is an int"], ["sql", "columns", "id:int,a:text,a:real", "defined twice"],
  ["sql", "columns", "id:INT", "lowercase type"], ["sql", "columns", columns(32), "at most 32 columns"],
];

describe("service configuration", () => {
  it("reads all 16 schemas of the catalogue", () => {
    expect(Object.keys(SCHEMAS)).toHaveLength(16);
    expect(SCHEMAS.api_gateway!.required).toEqual(["keys"]);
    expect(SCHEMAS.api_gateway!.properties.keys!.generated).toBe(true);
    expect(SCHEMAS.recommend!.properties).toEqual({});
  });

  it.each(ACCEPTED)("%s accepts %s = %j", (service, key, value) => {
    expect(errors(service, { [key]: value })).toEqual({});
  });

  it.each(REFUSED)("%s refuses %s = %j (%s) at its field", (service, key, value, why) => {
    const found = errors(service, { [key]: value });
    expect(Object.keys(found), why).toEqual([`spec.nodes[0].config.${key}`]);
    expect(["wrong_type", "out_of_range", "pattern_mismatch"]).toContain(found[`spec.nodes[0].config.${key}`]!.code);
  });

  it("says what is wrong and what would be right, in the API's words", () => {
    const message = (service: string, config: Record<string, string>) => Object.values(errors(service, config))[0]?.message;
    expect(message("count", { bits: "100" })).toBe("must be a multiple of 64, got 100");
    expect(message("ema", { alpha: "2" })).toBe("must be at most 1, got 2");
    expect(message("kvs", { max_value: "big" })).toBe("must be an integer in decimal digits without leading zeros, got 'big'");
    expect(message("kvs", { max_values: "10" })).toBe("unknown key 'max_values' for kvs; its keys: max_value");
    expect(message("recommend", { k: "1" })).toBe("unknown key 'k' for recommend; it takes no configuration");
    expect(message("api_gateway", { rate: "-1" })).toBe("must be greater than 0, got -1");
    expect(message("flow_monitor", { seed: "9223372036854775808" })).toBe("must be at most 9223372036854775807, got 9223372036854775808");
    expect(message("flow_monitor", { seed: "9223372036854775807" })).toBeUndefined();
    const cols = message("sql", { columns: "name:text" })!;
    expect(cols.startsWith("'name:text' is not valid: The table's columns") && cols.includes("the first column is")).toBe(true);
  });

  it("takes a required key left out as no error: a save fills it in", () => {
    expect(errors("api_gateway", {})).toEqual({});
    expect(errors("sql", {})).toEqual({});
    expect(errors("ipsec", {})).toEqual({});
  });

  it("reports a required key that nothing fills in", () => {
    const schema = readConfigSchema({ properties: { host: { type: "string", description: "Where to send." } }, required: ["host"] });
    expect(configErrors("fwd", schema, {}, "spec.nodes[3].config")).toEqual([
      { field: "spec.nodes[3].config.host", message: "is required by fwd: Where to send.", code: "missing" },
    ]);
  });
});
