import type { FastifyReply } from 'fastify'
import { escapeHtml, findCurrency, formatMinorUnits } from '../core/engine/index.ts'

/*
 * The console's pages: server-rendered HTML, no scripts (the CSP allows none), one inline
 * stylesheet. Every value goes through escapeHtml() (html`` below) unless it is markup this
 * module made (raw()).
 */

/** Markup that is already safe. */
export class Raw {
  readonly html: string
  constructor (html: string) {
    this.html = html
  }
}

export function raw (markup: string): Raw {
  return new Raw(markup)
}

function part (value: unknown): string {
  if (value instanceof Raw) return value.html
  if (Array.isArray(value)) return value.map(part).join('')
  if (value === undefined || value === null || value === false) return ''
  return escapeHtml(value)
}

/** A template whose interpolations are escaped, except Raw ones and arrays of them. */
export function html (strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] as string
  values.forEach((value, index) => { out += part(value) + (strings[index + 1] as string) })
  return new Raw(out)
}

/** No scripts, styles inline only, forms to this origin, never framed. */
export const CONSOLE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const STYLE = `
*, *::before, *::after { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; line-height: 1.5; color: #1a1a1a; background: #fafafa; }
header { background: #1f2937; color: #fff; padding: .75rem 1rem; }
header a { color: #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; } h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
a { color: #1d4ed8; }
a:focus, button:focus, input:focus, select:focus, summary:focus { outline: 3px solid #f59e0b; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #f3f4f6; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.table-wrap { overflow-x: auto; }
form.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: .75rem; background: #fff; padding: 1rem; border: 1px solid #ddd; }
fieldset { border: 1px solid #ddd; margin: 0; padding: .5rem; grid-column: 1 / -1; }
label { display: block; font-weight: 600; font-size: .9rem; }
fieldset label { display: inline-block; font-weight: normal; margin-right: .6rem; }
input, select, button { font: inherit; padding: .35rem .5rem; max-width: 100%; }
input[type=checkbox] { padding: 0; }
button { background: #1d4ed8; color: #fff; border: 0; border-radius: 4px; padding: .45rem .9rem; cursor: pointer; }
button.danger { background: #b91c1c; }
button + a { margin-left: 1rem; }
.actions { display: flex; flex-wrap: wrap; gap: 1rem; }
.actions form { background: #fff; border: 1px solid #ddd; padding: .75rem; }
.notice { padding: .75rem 1rem; border-left: 4px solid #15803d; background: #ecfdf5; margin: 1rem 0; }
.problem { padding: .75rem 1rem; border-left: 4px solid #b91c1c; background: #fef2f2; margin: 1rem 0; }
.code { color: #555; font-size: .85em; }
td code, dd code { overflow-wrap: anywhere; word-break: break-all; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; background: #fff; padding: 1rem; border: 1px solid #ddd; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ol.timeline { list-style: none; padding: 0; border-left: 3px solid #9ca3af; margin-left: .5rem; }
ol.timeline li { padding: .25rem 0 .5rem 1rem; }
ol.timeline time { display: block; color: #555; font-size: .9em; }
.pager { margin: 1rem 0; }
@media (max-width: 40rem) {
  main { padding: .5rem; }
  dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: .5rem; }
  table.payments thead { position: absolute; left: -10000px; }
  table.payments tr { display: block; border: 1px solid #ddd; margin-bottom: .5rem; background: #fff; }
  table.payments td { display: grid; grid-template-columns: 8rem 1fr; border: 0; text-align: left; }
  table.payments td::before { content: attr(data-label); font-weight: 600; }
}
`

export interface PageParts {
  title: string
  /** The console's own address, for the header's link. */
  home: string
  body: Raw
}

export function page ({ title, home, body }: PageParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · Payments console</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="${escapeHtml(home)}">Payments console</a></header>
<main>
${body.html}
</main>
</body>
</html>`
}

/** Sends a console page with the console's headers: its CSP, no caching (payments change), no framing. */
export function sendPage (reply: FastifyReply, statusCode: number, parts: PageParts): FastifyReply {
  return reply.code(statusCode)
    .header('content-security-policy', CONSOLE_CSP)
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    // same-origin, not no-referrer: with no-referrer a browser posts forms with "Origin: null".
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(page(parts))
}

/** "€19.99" (en-US, EUR), with every digit of the currency's exponent; the raw number and code for an unknown currency. */
export function formatMoney (amount: number | undefined, currencyCode: string, locale: string): string {
  if (amount === undefined) return '—'
  const currency = findCurrency(currencyCode)
  if (currency === undefined || !Number.isSafeInteger(amount)) return `${amount} ${currencyCode}`
  const format = new Intl.NumberFormat(locale, {
    style: 'currency', currency: currency.alpha3, minimumFractionDigits: currency.exp, maximumFractionDigits: currency.exp
  })
  // A decimal string keeps every digit (Intl reads it exactly; a Number could round).
  return format.format(formatMinorUnits(amount, currency.alpha3) as unknown as number)
}

/** A time as people read it, in UTC so operators in different places see the same one. */
export function formatTime (iso: string | undefined, locale: string): string {
  if (iso === undefined || Number.isNaN(Date.parse(iso))) return '—'
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso)) + ' UTC'
}
