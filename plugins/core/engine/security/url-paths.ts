/*
 * Paths of URLs as a URL parser reads them (dot segments resolved, backslashes as slashes, tabs
 * dropped, "//host/…" host-relative, invalid hosts refused), percent-decoded for comparison.
 *
 * Parsing and decoding a URL cost a few µs, and every token route compared two, every capture
 * token built one. The common case — a path of plain characters (RFC 3986 `pchar` without `%`, no dot
 * segment), alone or after an origin written the way the parser writes it — reads through the
 * parser and the decoder exactly as it is written: its text is its path, and only URLs outside
 * that shape are parsed.
 */

const PARSE_BASE = 'http://paywire.invalid'

/** Segments of plain characters, none starting with a dot: the parser and the decoder leave them as they are. */
const PLAIN_PATH = /^(?:\/(?!\.)[\w\-.~!$&'()*+,;=:@]*)+$/

/** Origins (`https://host[:port]`) already written the way the URL parser writes them back, so a URL starting with one parses. */
const canonicalOrigins = new Map<string, boolean>()
const ORIGINS_KEPT = 64

function isCanonicalOrigin (origin: string): boolean {
  let canonical = canonicalOrigins.get(origin)
  if (canonical === undefined) {
    try {
      canonical = new URL(`${origin}/`).href === `${origin}/`
    } catch {
      canonical = false
    }
    // A shop answers on a few origins; a request line can name any, so stay bounded.
    if (canonicalOrigins.size >= ORIGINS_KEPT) canonicalOrigins.clear()
    canonicalOrigins.set(origin, canonical)
  }
  return canonical
}

/** The path of a plain URL as its text (a path-absolute one, or after a canonical http(s) origin); undefined for any other URL. */
function plainPath (url: string, whole = false): string | undefined {
  let start = 0
  if (url.startsWith('http://') || url.startsWith('https://')) {
    start = url.indexOf('/', url.charCodeAt(4) === 58 /* : */ ? 7 : 8)
    if (start === -1 || !isCanonicalOrigin(url.slice(0, start))) return undefined
  } else if (url.charCodeAt(1) === 47 /* / */) {
    // "//host/path" is host-relative: its path starts after the host.
    return undefined
  }
  let end = url.indexOf('?', start)
  const fragment = url.indexOf('#', start)
  if (end === -1 || (fragment !== -1 && fragment < end)) end = fragment
  if (whole && end !== -1) return undefined
  const path = end === -1 ? (start === 0 ? url : url.slice(start)) : url.slice(start, end)
  return PLAIN_PATH.test(path) ? path : undefined
}

/**
 * True for an absolute http(s) URL the URL parser writes back unchanged (`new URL(url).href ===
 * url`) and that has no query or fragment: a canonical origin and a plain path.
 */
export function isPlainAbsoluteUrl (url: string): boolean {
  return (url.startsWith('http://') || url.startsWith('https://')) && plainPath(url, true) !== undefined
}

function decodedPath (url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url, PARSE_BASE).pathname)
  } catch {
    return undefined
  }
}

/** True when both URLs parse and their paths, percent-decoded, are the same (scheme, host, query and fragment aside). */
export function samePath (requestUrl: string, targetUrl: string): boolean {
  const requestPath = plainPath(requestUrl)
  if (requestPath !== undefined) {
    const targetPath = plainPath(targetUrl)
    if (targetPath !== undefined) return requestPath === targetPath
  }
  const decoded = decodedPath(requestUrl)
  return decoded !== undefined && decoded === decodedPath(targetUrl)
}
