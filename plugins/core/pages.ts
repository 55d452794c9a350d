import { fileURLToPath } from 'node:url'
import type { FastifyRequest } from 'fastify'
import { TemplateRenderer, escapeHtml, findCurrency, formatMinorUnits, type TemplatePaths } from './engine/index.ts'
import { DONE_FIELDS, moneyBackMessage, statusLabel, statusMessage, type DoneField } from './done.ts'
import type { DoneResponse } from './schemas.ts'

/*
 * What the buyer sees on the payment routes when the browser asks for HTML: the done page,
 * and a page for every error (an unknown link, a provider failure, a payment being
 * processed). API clients keep the coded JSON.
 */

export interface PagesOptions {
  /** Where "Back to the shop" points. Default "/". */
  shopUrl?: string
  /** Locale of amounts ("de-DE": 19,99 €). Default: the buyer's Accept-Language, else "en". */
  locale?: string
  /**
   * Template directories searched before the built-in ones, by namespace: `PaywireFastify`
   * holds done.html, error.html and busy.html; `PaywireCore` the layout.html around them.
   */
  templatePaths?: TemplatePaths
  /** What the done answer shows besides status, number, amount and currency (opt-in, per field). */
  doneFields?: DoneField[]
  /** Security headers (CSP, Referrer-Policy, framing) on the payment routes. Default true. */
  securityHeaders?: boolean
}

export const PAGES_NAMESPACE = 'PaywireFastify'
const BUILT_IN_TEMPLATES = fileURLToPath(new URL('./templates/', import.meta.url))
const DEFAULT_LOCALE = 'en'

/** How long a busy page waits before it refreshes, when the error does not say. */
export const DEFAULT_RETRY_AFTER_SECONDS = 2

/** What a page says about money when a request failed: known from the payment's status, or not. */
export type ChargeState = 'charged' | 'not-charged' | 'unknown'

const CHARGE_SENTENCES: Record<ChargeState, string> = {
  charged: 'Your payment went through: you were charged once.',
  'not-charged': 'Nothing was charged.',
  unknown: 'We could not confirm whether you were charged. If you were, the shop will confirm it; please do not pay twice.'
}

export interface ErrorPageContent {
  heading: string
  message: string
  /** A link to run the payment again (the same payment link). */
  retryUrl?: string
  /** A link to the payment's result page. */
  doneUrl?: string
  charge?: ChargeState
  code: string
}

/** Validates the pages options, naming the first bad one. */
export function checkPagesOptions (pages: unknown, fail: (option: string, problem: string) => never): PagesOptions {
  if (pages === undefined) return {}
  if (pages === null || typeof pages !== 'object' || Array.isArray(pages)) fail('pages', 'must be an object')
  const options = pages as Record<string, unknown>
  const known = ['shopUrl', 'locale', 'templatePaths', 'doneFields', 'securityHeaders']
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      const near = known.find((candidate) => candidate.toLowerCase() === name.toLowerCase())
      fail(`pages.${name}`, `is not a pages option${near === undefined ? '' : ` (did you mean ${near}?)`}; its options: ${known.join(', ')}`)
    }
  }
  if (options.shopUrl !== undefined && (typeof options.shopUrl !== 'string' || !/^(https?:\/\/|\/)/.test(options.shopUrl))) {
    fail('pages.shopUrl', 'must be an absolute http(s) URL or a path starting with /')
  }
  if (options.locale !== undefined && (typeof options.locale !== 'string' || !knownLocale(options.locale))) {
    fail('pages.locale', 'must be a locale Intl knows, like "en-US" or "de-DE"')
  }
  if (options.templatePaths !== undefined) {
    const paths = options.templatePaths
    const valid = paths !== null && typeof paths === 'object' && !Array.isArray(paths) && Object.values(paths).every((dirs) =>
      typeof dirs === 'string' || (Array.isArray(dirs) && dirs.every((dir) => typeof dir === 'string')))
    if (!valid) fail('pages.templatePaths', 'must map template namespaces to directories ({ PaywireFastify: "/app/templates" })')
  }
  if (options.doneFields !== undefined) {
    if (!Array.isArray(options.doneFields)) fail('pages.doneFields', `must be a list of ${DONE_FIELDS.join(', ')} or details.<key>`)
    options.doneFields.forEach((field, index) => {
      if (typeof field !== 'string' || !((DONE_FIELDS as readonly string[]).includes(field) || /^details\.[\w-]+$/.test(field))) {
        const near = DONE_FIELDS.find((candidate) => candidate.toLowerCase() === String(field).toLowerCase())
        fail(`pages.doneFields.${index}`, `must be one of ${DONE_FIELDS.join(', ')} or details.<key>${near === undefined ? '' : ` (did you mean ${near}?)`}`)
      }
    })
  }
  if (options.securityHeaders !== undefined && typeof options.securityHeaders !== 'boolean') fail('pages.securityHeaders', 'must be a boolean')
  return options as PagesOptions
}

function knownLocale (tag: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length > 0
  } catch {
    return false
  }
}

/** The first locale of Accept-Language that Intl knows. */
function acceptedLocale (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const tags = header.split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined)
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q) }
    })
    .filter(({ tag, q }) => /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) && q > 0)
    .sort((a, b) => b.q - a.q)
  return tags.find(({ tag }) => knownLocale(tag))?.tag
}

/** Renders the buyer's pages; one per payment routes context. */
export class BuyerPages {
  readonly shopUrl: string
  readonly doneFields: readonly DoneField[]
  readonly #locale: string | undefined
  readonly #renderer: TemplateRenderer

  constructor (options: PagesOptions = {}) {
    this.shopUrl = options.shopUrl ?? '/'
    this.doneFields = options.doneFields ?? []
    this.#locale = options.locale
    const paths: Record<string, string[]> = {}
    for (const [namespace, dirs] of Object.entries(options.templatePaths ?? {})) paths[namespace] = Array.isArray(dirs) ? [...dirs] : [dirs]
    paths[PAGES_NAMESPACE] = [...(paths[PAGES_NAMESPACE] ?? []), BUILT_IN_TEMPLATES]
    this.#renderer = new TemplateRenderer(paths)
  }

  /** The configured locale, else the buyer's. */
  localeOf (request: FastifyRequest): string {
    return this.#locale ?? acceptedLocale(request.headers['accept-language']) ?? DEFAULT_LOCALE
  }

  /** "¥1,000" (en, JPY), "19,99 €" (de, EUR); the raw number and code for a currency ISO 4217 does not know. */
  formatAmount (amount: number | undefined, currencyCode: string | undefined, locale: string): string {
    if (amount === undefined) return ''
    const currency = currencyCode === undefined ? undefined : findCurrency(currencyCode)
    if (currency === undefined) return `${amount} ${currencyCode ?? ''}`.trim()
    const decimal = formatMinorUnits(amount, currency.alpha3)
    const format = new Intl.NumberFormat(locale, {
      style: 'currency', currency: currency.alpha3, minimumFractionDigits: currency.exp, maximumFractionDigits: currency.exp
    })
    // A decimal string keeps every digit (Intl reads it exactly; a Number could round).
    return format.format(decimal as unknown as number)
  }

  async done (payload: DoneResponse, request: FastifyRequest): Promise<string> {
    const { number = '', totalAmount, currencyCode } = payload.payment
    const locale = this.localeOf(request)
    const [heading, standard] = statusMessage(payload.status)
    const message = moneyBackMessage(payload.amounts, (minor) => this.formatAmount(minor, currencyCode, locale)) ?? standard
    const content = await this.#renderer.render(`@${PAGES_NAMESPACE}/done.html`, {
      heading,
      message,
      status: payload.status,
      statusLabel: statusLabel(payload.status),
      number,
      amount: this.formatAmount(totalAmount, currencyCode, locale),
      currencyCode: currencyCode ?? '',
      payment: payload.payment,
      shopUrl: this.shopUrl,
      shopLinkText: 'Back to the shop'
    })
    return await this.#layout(heading, content)
  }

  async error (page: ErrorPageContent): Promise<string> {
    const links: string[] = []
    if (page.retryUrl !== undefined) links.push(`<a class="retry" href="${escapeHtml(page.retryUrl)}">Try again</a>`)
    if (page.doneUrl !== undefined) links.push(`<a class="done" href="${escapeHtml(page.doneUrl)}">See your payment</a>`)
    links.push(`<a class="shop" href="${escapeHtml(this.shopUrl)}">Back to the shop</a>`)
    const content = await this.#renderer.render(`@${PAGES_NAMESPACE}/error.html`, {
      heading: page.heading,
      message: page.message,
      charge: page.charge === undefined ? '' : CHARGE_SENTENCES[page.charge],
      actions: `<p class="actions">${links.join(' · ')}</p>`,
      code: page.code,
      shopUrl: this.shopUrl
    })
    return await this.#layout(page.heading, content)
  }

  /** A page that refreshes itself (no JavaScript) until the payment is no longer busy. */
  async busy (refreshUrl: string, seconds: number): Promise<string> {
    const heading = 'Your payment is being processed'
    const content = await this.#renderer.render(`@${PAGES_NAMESPACE}/busy.html`, {
      heading,
      message: 'Please wait a moment: do not pay again.',
      seconds,
      refreshUrl,
      shopUrl: this.shopUrl
    })
    const head = `<meta http-equiv="refresh" content="${seconds};url=${escapeHtml(refreshUrl)}">`
    return await this.#layout(heading, content, head)
  }

  async #layout (title: string, content: string, head = ''): Promise<string> {
    return await this.#renderer.render('@PaywireCore/layout.html', { title, content, head })
  }
}

/** Browsers ask for text/html first; API clients (and curl's * / *) get JSON. */
export function prefersHtml (request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  const html = accept.indexOf('text/html')
  const json = accept.indexOf('application/json')
  return html !== -1 && (json === -1 || html < json)
}
