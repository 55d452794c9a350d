/* Where a sampled frame's code lives, for the profilers (profile.ts, perf-gap.ts): a package, a Paywire directory, or a part of Node. */

/** The area of a script URL (file:///…, node:…), or undefined for code with no URL. */
export function areaOfUrl (url: string): string | undefined {
  if (url === '') return undefined
  if (url.startsWith('node:')) return url.startsWith('node:internal/modules') ? 'node: module loading' : `node: ${url.includes('http') ? 'http' : url.includes('stream') || url.includes('net') ? 'net/streams' : 'other'}`
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg !== undefined) return pkg
  return /(plugins\/[^/]+(\/engine)?|gateways\/[^/]+|app\.ts|scripts\/bench)/.exec(url)?.[1] ?? url
}

/** A package or one of Paywire's directories: the code a sample is charged to when it is on the stack. */
export function isOwnedArea (area: string): boolean {
  return !area.startsWith('node:') && !area.startsWith('(')
}
