/**
 * The exports of a CommonJS package loaded with `import()`. Node gives them both as named exports and as `default`
 * (the package's `module.exports`); the production bundle (esbuild, which puts a lazily imported package in a chunk
 * of its own) gives them as `default` only, so a named export read from the namespace is undefined there. Reading
 * `default` when it holds the exports works in both.
 */
export function commonJsExports<Exports extends object>(namespace: Exports): Exports {
  const moduleExports: unknown = (namespace as { default?: unknown }).default;
  return typeof moduleExports === 'object' && moduleExports !== null ? (moduleExports as Exports) : namespace;
}
