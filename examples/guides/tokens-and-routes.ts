/*
 * Tokens and routes (docs/tokens-and-routes.md): security tokens, verifying the one a
 * request carries (in the path or the query string), serving a request outside Fastify with
 * runWithHttpRequest(), and rendering templates.
 * Run: npx tsx --conditions=paywire-source examples/guides/tokens-and-routes.ts
 */
import { fileURLToPath } from 'node:url'
import { GetHttpRequest, Payment, PaywireBuilder, RenderTemplate, runWithHttpRequest, type HttpRequestData } from 'paywire/engine'
import { OfflineGatewayFactory } from 'paywire/gateways/offline'

const TEMPLATES = fileURLToPath(new URL('./templates/', import.meta.url))

export async function main (): Promise<Record<string, unknown>> {
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    // Where the capture token points: ":token" puts the hash in the path (the Fastify plugin's
    // routes use "payment/capture/:token"); without it, the hash is the ?paywire_token= parameter.
    .setGenericTokenFactoryPaths({ capture: 'pay/capture/:token' })
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    // "paywire.paths" maps a template namespace to directories: "@Shop/receipt.html".
    .addGateway('cash', { factory: 'offline', 'paywire.paths': { Shop: TEMPLATES } })
    .getPaywire()
  try {
    const payments = paywire.getStorage(Payment)
    const payment = Object.assign(payments.create(), { number: 'ORDER-9', totalAmount: 500, currencyCode: 'EUR' })
    await payments.update(payment)

    // A capture token: https://shop.example/pay/capture/<hash>; afterUrl is the done page's.
    const capture = await paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
    const verifier = paywire.getHttpRequestVerifier()
    // What a framework gives verify(): the URL (its path is compared with the token's), and the
    // hash: the route parameter `token` (or `paywire_token`), the query or the parsed body.
    const fromPath = await verifier.verify({ url: new URL(capture.targetUrl).pathname, params: { token: capture.hash } })

    // A token for a route of the application's own, without ":token": the hash travels as
    // ?paywire_token=..., so verify() needs the query, parsed.
    const own = await paywire.getTokenFactory().createToken('cash', payment, '/shop/pay')
    const url = new URL(own.targetUrl)
    const fromQuery = await verifier.verify({ url: url.pathname + url.search, query: Object.fromEntries(url.searchParams) })

    // Outside Fastify: the request being served, as GetHttpRequest gives it to actions.
    const served: HttpRequestData = {
      method: 'GET',
      uri: `${url.pathname}?PayerID=P-1`,
      query: { PayerID: 'P-1' },
      request: {}, // the parsed body (form or JSON)
      content: '', // the raw body, byte for byte (webhook signatures)
      headers: { 'user-agent': 'example' },
      clientIp: '127.0.0.1',
      userAgent: 'example'
      // log: a pino-style logger of this request (optional): see docs/observability.md
    }
    const seen = await runWithHttpRequest(served, async () => {
      const httpRequest = new GetHttpRequest()
      await paywire.getGateway('cash').execute(httpRequest)
      return httpRequest.query
    })

    // Templates: "@Namespace/file.html"; {{ x }} is escaped, {{{ x }}} is not; layout: null skips the layout.
    const receipt = new RenderTemplate('@Shop/receipt.html', { number: payment.number, payer: { name: '<Ada>' }, layout: null })
    await paywire.getGateway('cash').execute(receipt)

    return {
      capturePath: new URL(capture.targetUrl).pathname.replace(capture.hash, '<hash>'),
      pathTokenMatches: fromPath.hash === capture.hash,
      ownUrl: `${url.pathname}?paywire_token=…`,
      queryTokenMatches: fromQuery.hash === own.hash,
      seenQuery: seen,
      receipt: receipt.result.trim()
    }
  } finally {
    await paywire.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main())
