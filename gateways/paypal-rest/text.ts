/** PayPal's limit for description, invoice_number and custom (v1). */
export const PAYPAL_TEXT_LIMIT = 127

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })

/**
 * `text` cut to at most `limit` UTF-16 units (so to at most `limit` characters however PayPal
 * counts them) on a grapheme cluster boundary: an emoji, a flag, a family (ZWJ sequence) or a
 * letter with its accents is kept whole or dropped whole. A cut by UTF-16 units could leave a
 * lone surrogate, which no storage takes and PayPal shows as garbage.
 */
export function cutText (text: string, limit = PAYPAL_TEXT_LIMIT): string {
  if (text.length <= limit) return text
  let end = 0
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > limit) break
    end = index + segment.length
  }
  return text.slice(0, end)
}
