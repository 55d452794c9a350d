// A verifier must check the event bytes as the merchant received them; re-serialising can change
// them (paypal-wire §4.4), which is why the PHP SDK splices the received body verbatim into
// "webhook_event". This scanner finds that verbatim text inside an already valid JSON document.

function skipWhitespace (text: string, index: number): number {
  while (/\s/.test(text.charAt(index))) index++
  return index
}

function endOfString (text: string, start: number): number {
  let index = start + 1
  while (text.charAt(index) !== '"') index += text.charAt(index) === '\\' ? 2 : 1
  return index + 1
}

function endOfValue (text: string, start: number): number {
  const first = text.charAt(start)
  if (first === '"') return endOfString(text, start)
  if (first !== '{' && first !== '[') {
    let index = start
    while (!/[\s,\]}]/.test(text.charAt(index))) index++
    return index
  }
  let depth = 0
  let index = start
  do {
    const character = text.charAt(index)
    if (character === '"') {
      index = endOfString(text, index)
      continue
    }
    if (character === '{' || character === '[') depth++
    if (character === '}' || character === ']') depth--
    index++
  } while (depth > 0)
  return index
}

/**
 * The exact source text of a top-level property of the JSON object `json`, or undefined when it is
 * not there. `json` must already be known to parse.
 */
export function rawTopLevelProperty (json: string, property: string): string | undefined {
  let index = skipWhitespace(json, 0)
  if (json.charAt(index) !== '{') return undefined
  index = skipWhitespace(json, index + 1)
  while (json.charAt(index) === '"') {
    const keyEnd = endOfString(json, index)
    const key = JSON.parse(json.slice(index, keyEnd)) as string
    const valueStart = skipWhitespace(json, skipWhitespace(json, keyEnd) + 1)
    const valueEnd = endOfValue(json, valueStart)
    if (key === property) return json.slice(valueStart, valueEnd)
    index = skipWhitespace(json, skipWhitespace(json, valueEnd) + 1)
  }
  return undefined
}
