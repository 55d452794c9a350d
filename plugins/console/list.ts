import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  HUMAN_STATUSES, Payment, errorCodes, findCurrency, isPaymentSearch, parseToMinorUnits, type HumanStatusValue, type PaymentQuery
} from '../core/engine/index.ts'
import { formatMoney, formatTime, html, raw, sendPage, type Raw } from './html.ts'
import {
  STATUS_LABELS, fieldsOf, isHumanStatus, problem, single, viewOf, type ConsoleRuntime, type PaymentView
} from './runtime.ts'

/*
 * The payment list: the filters as a plain GET form (its address can be bookmarked and
 * shared), the storage's PaymentSearch for the ids (newest first, cursor-paged), then each
 * payment read and its status asked of its gateway (reads never write).
 */

/** What the operator typed, kept to fill the form again. */
interface Filters {
  status: string[]
  gateway: string
  currency: string
  from: string
  to: string
  min: string
  max: string
  provider: string
  attention: boolean
  after: string
}

class FilterProblem extends Error {}

const DATE = /^\d{4}-\d{2}-\d{2}$/

function readFilters (query: unknown): Filters {
  const fields = fieldsOf(query)
  const status = fields.status
  return {
    status: (Array.isArray(status) ? status : status === undefined ? [] : [status]).map((value) => value.trim()).filter((value) => value !== ''),
    gateway: single(fields.gateway),
    currency: single(fields.currency).toUpperCase(),
    from: single(fields.from),
    to: single(fields.to),
    min: single(fields.min),
    max: single(fields.max),
    provider: single(fields.provider),
    attention: single(fields.attention) === 'yes',
    after: single(fields.after)
  }
}

function dateBound (value: string, label: string, endOfDay: boolean): string | undefined {
  if (value === '') return undefined
  if (!DATE.test(value) || Number.isNaN(Date.parse(value))) throw new FilterProblem(`${label} must be a date like 2026-11-28.`)
  return `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`
}

function amountBound (value: string, label: string, currency: string): number | undefined {
  if (value === '') return undefined
  if (currency === '') throw new FilterProblem(`Choose a currency to filter by ${label.toLowerCase()}: amounts are read in its units.`)
  try {
    return parseToMinorUnits(value, currency)
  } catch {
    const exp = findCurrency(currency)?.exp ?? 2
    throw new FilterProblem(`${label} "${value}" is not an amount in ${currency}: write it like ${exp === 0 ? '500' : `12.${'5'.padEnd(exp, '0')}`}.`)
  }
}

/** The search the filters ask for; FilterProblem names the first field that is wrong. */
function queryOf (filters: Filters, runtime: ConsoleRuntime): PaymentQuery {
  const unknown = filters.status.find((value) => !isHumanStatus(value))
  if (unknown !== undefined) throw new FilterProblem(`"${unknown}" is not a status.`)
  if (filters.gateway !== '' && !runtime.paywire.hasGateway(filters.gateway)) throw new FilterProblem(`There is no gateway "${filters.gateway}".`)
  if (filters.currency !== '' && findCurrency(filters.currency) === undefined) throw new FilterProblem(`"${filters.currency}" is not an ISO 4217 currency code (like EUR or USD).`)
  const createdFrom = dateBound(filters.from, 'Created from', false)
  const createdTo = dateBound(filters.to, 'Created to', true)
  if (createdFrom !== undefined && createdTo !== undefined && createdFrom > createdTo) throw new FilterProblem('"Created from" is after "Created to".')
  const currency = filters.currency === '' ? '' : (findCurrency(filters.currency)?.alpha3 ?? '')
  const amountMin = amountBound(filters.min, 'Amount from', currency)
  const amountMax = amountBound(filters.max, 'Amount to', currency)
  if (amountMin !== undefined && amountMax !== undefined && amountMin > amountMax) throw new FilterProblem('"Amount from" is more than "Amount to".')
  const query: PaymentQuery = { first: runtime.pageSize }
  if (filters.status.length > 0) query.status = filters.status as HumanStatusValue[]
  if (filters.gateway !== '') query.gatewayName = filters.gateway
  if (currency !== '') query.currencyCode = currency
  if (createdFrom !== undefined) query.createdFrom = createdFrom
  if (createdTo !== undefined) query.createdTo = createdTo
  if (amountMin !== undefined) query.amountMin = amountMin
  if (amountMax !== undefined) query.amountMax = amountMax
  if (filters.provider !== '') query.providerId = filters.provider
  if (filters.attention) query.needsAttention = true
  if (filters.after !== '') query.after = filters.after
  return query
}

function filterForm (runtime: ConsoleRuntime, filters: Filters): Raw {
  const gateways = runtime.paywire.getGatewayNames()
  const checked = (on: boolean) => on ? raw(' checked') : ''
  const selected = (on: boolean) => on ? raw(' selected') : ''
  return html`<form class="filters" method="get" action="${runtime.home}/" aria-label="Filter payments">
<fieldset><legend>Status</legend>${HUMAN_STATUSES.map((status) => html`<label><input type="checkbox" name="status" value="${status}"${checked(filters.status.includes(status))}> ${STATUS_LABELS[status]}</label>`)}</fieldset>
<div><label for="f-gateway">Gateway</label><select id="f-gateway" name="gateway"><option value="">Any</option>${gateways.map((name) => html`<option${selected(filters.gateway === name)}>${name}</option>`)}</select></div>
<div><label for="f-currency">Currency</label><input id="f-currency" name="currency" value="${filters.currency}" size="4" maxlength="3" placeholder="EUR" autocomplete="off"></div>
<div><label for="f-from">Created from</label><input id="f-from" name="from" type="date" value="${filters.from}"></div>
<div><label for="f-to">Created to</label><input id="f-to" name="to" type="date" value="${filters.to}"></div>
<div><label for="f-min">Amount from</label><input id="f-min" name="min" inputmode="decimal" value="${filters.min}" placeholder="10.00"></div>
<div><label for="f-max">Amount to</label><input id="f-max" name="max" inputmode="decimal" value="${filters.max}" placeholder="250.00"></div>
<div><label for="f-provider">Provider id</label><input id="f-provider" name="provider" value="${filters.provider}" autocomplete="off"></div>
<div><label><input type="checkbox" name="attention" value="yes"${checked(filters.attention)}> Needs attention only</label></div>
<div><button type="submit">Show payments</button> <a href="${runtime.home}/">Clear</a></div>
</form>`
}

function row (runtime: ConsoleRuntime, view: PaymentView): Raw {
  const { payment, status, amounts, attention } = view
  const { locale } = runtime
  return html`<tr>
<td data-label="Created">${formatTime(payment.createdAt, locale)}</td>
<td data-label="Payment"><a href="${runtime.home}/payments/${payment.id as string}">${payment.number === '' ? payment.id : payment.number}</a></td>
<td data-label="Gateway">${payment.gatewayName}</td>
<td data-label="Status" data-status="${status}">${STATUS_LABELS[status]}</td>
<td data-label="Amount" class="num">${formatMoney(payment.totalAmount, payment.currencyCode, locale)}</td>
<td data-label="Refunded" class="num">${amounts === undefined ? '—' : formatMoney(amounts.refunded, payment.currencyCode, locale)}</td>
<td data-label="Attention">${attention === undefined || Date.parse(attention.at) > Date.now() ? '' : attention.reason.replace(/_/g, ' ')}</td>
</tr>`
}

/** The next page's address: the same filters, after this page's last payment. */
function nextLink (runtime: ConsoleRuntime, query: unknown, endCursor: string): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(fieldsOf(query))) {
    if (name === 'after') continue
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, one)
  }
  params.set('after', endCursor)
  return `${runtime.home}/?${params.toString()}`
}

export async function listPage (runtime: ConsoleRuntime, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const filters = readFilters(request.query)
  const storage = runtime.paywire.getStorage(Payment)
  const parts = { title: 'Payments', home: runtime.home }
  const heading = html`<h1>Payments</h1>`
  if (!isPaymentSearch(storage)) {
    const error = new errorCodes.PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED('Payment')
    return sendPage(reply, 501, { ...parts, body: html`${heading}${problem(error.message, error.code)}` })
  }
  let query: PaymentQuery
  try {
    query = queryOf(filters, runtime)
  } catch (error) {
    if (!(error instanceof FilterProblem)) throw error
    return sendPage(reply, 400, { ...parts, body: html`${heading}${problem(error.message)}${filterForm(runtime, filters)}` })
  }
  const found = await storage.searchPayments(query)
  const payments = (await storage.findMany(found.ids)).filter((payment): payment is Payment => payment !== null)
  const views = await Promise.all(payments.map((payment) => viewOf(runtime, payment)))
  const table = views.length === 0
    ? html`<p>No payment matches these filters.</p>`
    : html`<div class="table-wrap"><table class="payments">
<caption class="code">Newest first</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Payment</th><th scope="col">Gateway</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Refunded</th><th scope="col">Needs attention</th></tr></thead>
<tbody>${views.map((view) => row(runtime, view))}</tbody>
</table></div>`
  const pager = found.endCursor === undefined ? '' : html`<p class="pager"><a rel="next" href="${nextLink(runtime, request.query, found.endCursor)}">Next ${runtime.pageSize} payments</a></p>`
  return sendPage(reply, 200, { ...parts, body: html`${heading}${filterForm(runtime, filters)}<h2>Results</h2>${table}${pager}` })
}
