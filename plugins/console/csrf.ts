import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/*
 * CSRF protection: a signed double-submit cookie. Each browser gets a random value in an
 * HttpOnly, SameSite=Strict cookie scoped to the console's path; every form carries the
 * HMAC-SHA256 of that value under the console's secret. A post is accepted only when its
 * field is the signature of the cookie it came with: another site can neither read the
 * cookie nor the form, and cannot plant a cookie whose signature it could compute without
 * the secret. Posts that a browser marks as cross-site (Sec-Fetch-Site, Origin) are refused
 * before that.
 */

export const CSRF_COOKIE = 'paywire_console_csrf'
export const CSRF_FIELD = 'csrf'

export class CsrfTokens {
  readonly #secret: Buffer
  readonly #path: string

  constructor (secret: string | undefined, path: string) {
    this.#secret = secret === undefined ? randomBytes(32) : Buffer.from(secret)
    this.#path = path
  }

  #sign (value: string): string {
    return createHmac('sha256', this.#secret).update(value).digest('base64url')
  }

  /** The form token for this browser, setting its cookie when it has none. */
  tokenFor (request: FastifyRequest, reply: FastifyReply): string {
    let value = cookieOf(request, CSRF_COOKIE)
    if (value === undefined || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
      value = randomBytes(32).toString('base64url')
      const secure = request.protocol === 'https' ? '; Secure' : ''
      reply.header('set-cookie', `${CSRF_COOKIE}=${value}; Path=${this.#path}; HttpOnly; SameSite=Strict${secure}`)
    }
    return this.#sign(value)
  }

  /** True when the post came from one of this browser's console pages. */
  verify (request: FastifyRequest, field: unknown): boolean {
    const site = request.headers['sec-fetch-site']
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return false
    const origin = request.headers.origin
    if (origin !== undefined && origin !== 'null' && URL.canParse(origin) && new URL(origin).host !== request.host) return false
    const value = cookieOf(request, CSRF_COOKIE)
    if (value === undefined || typeof field !== 'string') return false
    const expected = Buffer.from(this.#sign(value))
    const given = Buffer.from(field)
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
}

/** One cookie's value from the Cookie header (no cookie plugin needed for one name). */
export function cookieOf (request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim()
  }
  return undefined
}
