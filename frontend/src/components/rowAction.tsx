import type { Column } from "./PagedTable";

/** A table column of one link-styled button per row ("delete", "revoke"); test id `<action>-<kind>-<key>`. */
export function rowAction<T>(
  action: string,
  kind: string,
  key: (item: T) => string,
  onClick: (item: T) => void,
  offered: (item: T) => boolean = () => true,
): Column<T> {
  return {
    header: "",
    cell: (item) =>
      offered(item) && (
        <button type="button" className="link" data-testid={`${action}-${kind}-${key(item)}`} onClick={() => onClick(item)}>
          {action}
        </button>
      ),
  };
}
