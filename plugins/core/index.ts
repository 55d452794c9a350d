export * from './engine/index.ts'
export { paywire, paywire as default, routeTokenPaths } from './plugin.ts'
export { gatewayPlugin, type GatewayPluginOptions, type GatewayPluginSpec } from './gateway-plugin.ts'
export {
  DEFAULT_PREFIX, DEFAULT_TOKEN_LOCK_MS, GatewayOptionsSchema, PaywirePluginOptionsSchema, validateOptions,
  type PaywirePluginOptions
} from './options.ts'
export * from './schemas.ts'
export { donePayload, publicDetails, renderDonePage } from './done.ts'
export { sendReply, httpRequestData } from './http.ts'
