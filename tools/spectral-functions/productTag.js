// Each path belongs to one product, told by its prefix; its operations carry exactly that product's tag.
const PRODUCTS = [
  ['/v1/banking/', 'Banking'],
  ['/v1/cards', 'Cards'],
  ['/v1/checkout/', 'Checkout'],
];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export default function productTag(paths) {
  const results = [];
  for (const [path, item] of Object.entries(paths ?? {})) {
    const product = PRODUCTS.find(([prefix]) => path.startsWith(prefix))?.[1];
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      if (!product) {
        results.push({ message: `${path} is under no known product prefix`, path: [path, method] });
      } else if (!Array.isArray(op.tags) || op.tags.length !== 1 || op.tags[0] !== product) {
        results.push({ message: `${method.toUpperCase()} ${path} must be tagged exactly [${product}]`, path: [path, method, 'tags'] });
      }
    }
  }
  return results;
}
