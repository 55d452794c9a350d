import type { FastifyReply } from 'fastify'

// What both APIs' buyer pages share: plain HTML forms, no JavaScript, so tests and curl can drive them.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] as string)
}

function page (title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} - PayPal Simulator</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`
}

/** `body` is HTML already escaped by the caller; the title is escaped here. */
export function sendPage (reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page(title, body))
}

/**
 * Appends parameters after whatever query the merchant's URL already has, keeping that query
 * byte for byte (Payum-style `?cancelled=1` URLs must survive) and any fragment after it.
 */
export function appendQuery (url: string, parameters: Record<string, string>): string {
  const target = new URL(url)
  const existing = target.search.slice(1)
  const added = new URLSearchParams(parameters).toString()
  target.search = existing === '' ? added : `${existing}&${added}`
  return target.toString()
}
