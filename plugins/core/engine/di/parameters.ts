/*
 * Reads constructor parameter names from a class's source, the way awilix's CLASSIC mode
 * does: TypeScript types are gone at run time, so names are what autowire() can match
 * constructorParameter('api', ...) against. Results are cached per class.
 */

export interface Parameter {
  /** Undefined for destructured parameters. */
  name: string | undefined
  hasDefault: boolean
  rest: boolean
}

const cache = new WeakMap<Function, Parameter[]>()

export function constructorParameters (target: Function): Parameter[] {
  let parameters = cache.get(target)
  if (parameters === undefined) {
    parameters = readParameters(target)
    cache.set(target, parameters)
  }
  return parameters
}

function readParameters (target: Function): Parameter[] {
  let current: unknown = target
  while (typeof current === 'function' && current !== Function.prototype) {
    const list = ownConstructorParameterList(Function.prototype.toString.call(current))
    if (list !== undefined) return splitTopLevel(list).map(withoutComments).filter((part) => part !== '').map(toParameter)
    current = Object.getPrototypeOf(current)
  }
  return []
}

/** The text between the parentheses of the class's own constructor, if it declares one. */
function ownConstructorParameterList (source: string): string | undefined {
  if (!source.startsWith('class')) {
    // A plain function used as a constructor: its own parameter list.
    const open = source.indexOf('(')
    return open === -1 ? undefined : source.slice(open + 1, matchingParen(source, open))
  }
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const skipped = skipLiteral(source, i)
    if (skipped !== i) { i = skipped - 1; continue }
    const char = source[i]
    if (char === '{') depth++
    else if (char === '}') depth--
    else if (depth === 1 && source.startsWith('constructor', i) && !/[\w$]/.test(source.charAt(i - 1))) {
      const open = source.indexOf('(', i)
      const between = source.slice(i + 'constructor'.length, open)
      if (between.trim() === '') return source.slice(open + 1, matchingParen(source, open))
    }
  }
  return undefined
}

/** The index of the parenthesis closing the one at `open` (the source's end if it never closes). */
function matchingParen (source: string, open: number): number {
  let depth = 0
  let i = open
  for (; i < source.length; i++) {
    const skipped = skipLiteral(source, i)
    if (skipped !== i) { i = skipped - 1; continue }
    const char = source[i]
    if (char === '(') depth++
    else if (char === ')' && --depth === 0) break
  }
  return i
}

/** Index just after a string, template, comment or regular expression starting at `i`; `i` itself when none does. */
function skipLiteral (source: string, i: number): number {
  const char = source[i]
  if (char === '"' || char === "'" || char === '`') return endOf(source, i + 1, char)
  if (char !== '/') return i
  if (source[i + 1] === '/') {
    const end = source.indexOf('\n', i)
    return end === -1 ? source.length : end
  }
  if (source[i + 1] === '*') {
    const end = source.indexOf('*/', i + 2)
    return end === -1 ? source.length : end + 2
  }
  // A quote or a brace inside a regular expression must not count as one.
  return startsRegex(source, i) ? endOf(source, i + 1, '/') : i
}

/** Index just after the first unescaped `close` from `from` (outside [...] for regular expressions). */
function endOf (source: string, from: number, close: string): number {
  let inClass = false
  let j = from
  while (j < source.length && (source[j] !== close || inClass)) {
    if (close === '/' && source[j] === '[') inClass = true
    else if (close === '/' && source[j] === ']') inClass = false
    j += source[j] === '\\' ? 2 : 1
  }
  return j + 1
}

/**
 * A "/" starts a regular expression where an operand is expected (after "=", "(", ",", ":",
 * "[", "!", "&", "|", "?", "{", ";", "return", "typeof" or "case"); elsewhere it divides.
 */
function startsRegex (source: string, slash: number): boolean {
  let k = slash - 1
  while (k >= 0 && /\s/.test(source[k] as string)) k--
  if (k < 0 || '=(,:[!&|?{};'.includes(source[k] as string)) return true
  const word = /(?:^|[^\w$.])(return|typeof|case)$/.exec(source.slice(Math.max(0, k - 6), k + 1))
  return word !== null
}

function splitTopLevel (list: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < list.length; i++) {
    const skipped = skipLiteral(list, i)
    if (skipped !== i) { i = skipped - 1; continue }
    const char = list[i] as string
    if ('([{'.includes(char)) depth++
    else if (')]}'.includes(char)) depth--
    else if (char === ',' && depth === 0) {
      parts.push(list.slice(start, i).trim())
      start = i + 1
    }
  }
  parts.push(list.slice(start).trim())
  return parts
}

function toParameter (text: string): Parameter {
  const rest = text.startsWith('...')
  const body = rest ? text.slice(3) : text
  const hasDefault = topLevelOnly(body).includes('=')
  const match = /^([A-Za-z_$][\w$]*)/.exec(body)
  return { name: match?.[1], hasDefault, rest }
}

/** A parameter's text without its comments (JSDoc types in plain JavaScript, notes). */
function withoutComments (text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const skipped = skipLiteral(text, i)
    if (skipped === i) { out += text[i]; continue }
    // A comment becomes a space; a string stays (it may be a default value).
    out += text[i] === '/' ? ' ' : text.slice(i, skipped)
    i = skipped - 1
  }
  return out.trim()
}

/** The text with strings and bracketed parts blanked, so '=' inside destructuring defaults is ignored. */
function topLevelOnly (text: string): string {
  let depth = 0
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const skipped = skipLiteral(text, i)
    if (skipped !== i) { i = skipped - 1; continue }
    const char = text[i] as string
    if ('([{'.includes(char)) depth++
    if (depth === 0) out += char
    if (')]}'.includes(char)) depth--
  }
  return out
}
