// oneOf branches must be told apart the same way by every tool: either each branch has its own primitive
// type, or each is an object that requires a property holding a distinct const (design.md, schema subset).
export default function oneOfDistinguishable(branches) {
  if (!Array.isArray(branches)) return [{ message: 'oneOf must be an array' }];
  const types = branches.map((b) => (typeof b?.type === 'string' ? b.type : undefined));
  if (types.every((t) => t && t !== 'object') && new Set(types).size === types.length) return [];

  const constsByProp = new Map();
  for (const branch of branches) {
    for (const prop of branch?.required ?? []) {
      const value = branch?.properties?.[prop]?.const;
      if (value === undefined) continue;
      if (!constsByProp.has(prop)) constsByProp.set(prop, []);
      constsByProp.get(prop).push(value);
    }
  }
  for (const values of constsByProp.values()) {
    if (values.length === branches.length && new Set(values).size === values.length) return [];
  }
  return [{ message: 'oneOf branches must differ by type or by a required const property' }];
}
