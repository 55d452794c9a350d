import { PAYWIRE_ERR_REDIRECT_URL_EMPTY } from '../errors.ts'
import { escapeHtml } from '../html.ts'

/**
 * A reply is what a gateway wants sent to the buyer's browser (a redirect, a page). Actions
 * throw replies to stop the current flow; Gateway.execute returns them when asked with
 * { catchReply: true }. Replies are deliberately not Errors: they are a normal outcome,
 * carry no stack, and can never be mistaken for a failure by error handlers.
 */
export class Reply {
  get [Symbol.toStringTag] (): string {
    return this.constructor.name
  }
}

export type ReplyHeaders = Record<string, string>

export class HttpResponse extends Reply {
  readonly content: string
  readonly statusCode: number
  readonly headers: ReplyHeaders

  constructor (content: string, statusCode = 200, headers: ReplyHeaders = {}) {
    super()
    this.content = content
    this.statusCode = statusCode
    this.headers = headers
  }
}

export class HttpRedirect extends HttpResponse {
  readonly url: string

  constructor (url: string, statusCode = 302, headers: ReplyHeaders = {}) {
    if (url === '') throw new PAYWIRE_ERR_REDIRECT_URL_EMPTY()
    const safeUrl = escapeHtml(url)
    super(
      `<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<meta http-equiv="refresh" content="0;url=${safeUrl}">
<title>Redirecting to ${safeUrl}</title>
</head>
<body>
<p>Redirecting to <a href="${safeUrl}">${safeUrl}</a>.</p>
</body>
</html>`,
      statusCode,
      { ...headers, location: url }
    )
    this.url = url
  }
}

/** An auto-submitting form, for gateways that take the buyer with a POST (3-D Secure, Be2Bill). */
export class HttpPostRedirect extends HttpResponse {
  readonly url: string
  readonly fields: Record<string, string>

  constructor (url: string, fields: Record<string, string> = {}, statusCode = 200, headers: ReplyHeaders = {}) {
    const inputs = Object.entries(fields)
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('\n')
    super(
      `<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<title>Redirecting...</title>
</head>
<body onload="document.forms[0].submit()">
<form action="${escapeHtml(url)}" method="post">
<p>Redirecting to payment page...</p>
${inputs}
<noscript><button type="submit">Continue</button></noscript>
</form>
</body>
</html>`,
      statusCode,
      { 'content-type': 'text/html; charset=utf-8', ...headers }
    )
    this.url = url
    this.fields = fields
  }
}
