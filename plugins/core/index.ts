export * from './engine/index.ts'
export { paywire, paywire as default, routeTokenPaths } from './plugin.ts'
export { gatewayPlugin, type GatewayPluginOptions, type GatewayPluginSpec } from './gateway-plugin.ts'
export {
  DEFAULT_PREFIX, GatewayOptionsSchema, PaywirePluginOptionsSchema, validateOptions,
  type PaywirePluginOptions
} from './options.ts'
export * from './schemas.ts'
export { PAYWIRE_TAG } from './route-schemas.ts'
export { DONE_FIELDS, STATUS_MESSAGES, donePayload, publicDetails, statusMessage, type DoneField } from './done.ts'
export { BuyerPages, DEFAULT_RETRY_AFTER_SECONDS, PAGES_NAMESPACE, prefersHtml, type PagesOptions } from './pages.ts'
export { BUSY_CODES, buyerErrorHandler } from './error-pages.ts'
export { PAGE_CSP } from './routes.ts'
export { sendReply, httpRequestData, paywireErrorHandler } from './http.ts'
