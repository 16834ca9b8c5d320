// Typed reads of a DynamoDB item's attributes, for every store's decoder: a missing or mistyped required attribute is
// a corrupt item, and the error says which item and which attribute.
export type Item = Record<string, unknown>;

export interface ItemFields {
  optionalString(name: string): string | undefined;
  optionalNumber(name: string): number | undefined;
  string(name: string): string;
  number(name: string): number;
}

/** `kind` names the item in errors: "Task item has no valid status". */
export function fieldsOf(item: Item, kind: string): ItemFields {
  const optionalString = (name: string): string | undefined =>
    typeof item[name] === 'string' ? (item[name] as string) : undefined;
  const optionalNumber = (name: string): number | undefined =>
    typeof item[name] === 'number' ? (item[name] as number) : undefined;
  const required = <T>(name: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`${kind} has no valid ${name}`);
    return value;
  };
  return {
    optionalString,
    optionalNumber,
    string: (name) => required(name, optionalString(name)),
    number: (name) => required(name, optionalNumber(name)),
  };
}
