import { describe, expect, it } from "vitest";

import { configFields, extraKeys, withConfigValue } from "./configFields";
import { readConfigSchema } from "./serviceConfig";

const files = import.meta.glob<unknown>("../../../backend/e3/catalog/config_schemas/*.json", { eager: true, import: "default" });
const schema = (service: string) => readConfigSchema(files[`../../../backend/e3/catalog/config_schemas/${service}.json`]);

describe("the configuration form", () => {
  it("has one field per key, in the schema's order, saying what an empty one becomes", () => {
    const fields = configFields(schema("api_gateway"), { rate: "5" });
    expect(fields.map((f) => [f.key, f.required, f.value, f.placeholder, f.whenEmpty, f.inputMode])).toEqual([
      ["keys", true, "", "", "generated when saved", "text"],
      ["rate", false, "5", "default: 100", null, "decimal"],
      ["burst", false, "", "default: 10", null, "numeric"],
    ]);
    expect(fields[0]!.description).toMatch(/^The API keys a request may present/);
    const [columns] = configFields(schema("sql"), undefined);
    expect([columns!.required, columns!.placeholder, columns!.whenEmpty]).toEqual([
      true, "default: id:int,value:real", "filled with id:int,value:real when saved",
    ]);
    expect(configFields(schema("ipsec"), {}).map((f) => f.whenEmpty)).toEqual(["generated when saved", "generated when saved", null]);
  });

  it("has no field for a service that takes no configuration", () => {
    expect(configFields(schema("recommend"), {})).toEqual([]);
  });

  it("shows a value that is not a string (a YAML number) as written, and keys the schema lacks apart", () => {
    const config = { max_value: 100, color: "red" };
    expect(configFields(schema("kvs"), config)[0]!.value).toBe("100");
    expect(extraKeys(schema("kvs"), config)).toEqual([{ key: "color", value: "red" }]);
    expect(extraKeys(schema("kvs"), 5)).toEqual([]);
  });

  it("sets a typed value as a string and leaves an emptied key out (the service's default, or filled at save)", () => {
    expect(withConfigValue(undefined, "rate", "-1")).toEqual({ rate: "-1" });
    expect(withConfigValue({ keys: "k1", rate: "5" }, "rate", "")).toEqual({ keys: "k1" });
    expect(withConfigValue({ keys: "k1" }, "keys", "")).toEqual({});
    expect(withConfigValue("not a mapping", "burst", "3")).toEqual({ burst: "3" });
  });
});
