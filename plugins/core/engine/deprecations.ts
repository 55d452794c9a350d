import processWarning, { type WarningItem } from 'process-warning'
import { chainFrame, runInFrame, type DeprecationRecorder } from './async-chain.ts'

/*
 * The deprecations: the 1.x gateway-factory style (PAYWIREDEP001–011), which keeps working
 * next to the 2.0 style, and names replaced since (PAYWIREDEP012…). Each warns and is removed
 * in the next major version of Paywire.
 * Each code is stable API (docs/deprecations.md, MIGRATION.md): never renumber or reuse
 * one. A warning is emitted once per process; recordDeprecations() sees every use, which is
 * how the doctor and the registry attribute them to gateways.
 */

export interface Deprecation {
  readonly code: string
  /** What is deprecated, as a user writes it. */
  readonly deprecated: string
  /** What replaces it. */
  readonly replacement: string
  /** How to fix a use, in one sentence. */
  readonly fix: string
  /** When the warning is emitted. */
  readonly when: string
  /** The MIGRATION.md section explaining the change. */
  readonly guide: string
  readonly warning: WarningItem
}

function define (code: string, deprecated: string, replacement: string, fix: string, when: string): Deprecation {
  const guide = code.toLowerCase()
  const message = `Deprecated, removed in the next major version: ${deprecated}. Use ${replacement} instead: ${fix} See MIGRATION.md#${guide}.`
  return { code, deprecated, replacement, fix, when, guide, warning: processWarning.createDeprecation({ code, message }) }
}

export const PAYWIREDEP001 = define('PAYWIREDEP001',
  'GatewayFactory as the base class of a gateway factory', 'CoreGatewayFactory',
  'extend CoreGatewayFactory and declare options and services in configureContainer(), actions in getActions() and extensions in getExtensions().',
  'a GatewayFactory is constructed')
export const PAYWIREDEP002 = define('PAYWIREDEP002',
  'GatewayFactory.populateConfig(config)', 'configureContainer()',
  'return the parent\'s configureContainer() entries plus yours ("<factory>.<name>" values, autowire() services) instead of mutating a config object.',
  'a factory\'s own populateConfig() runs (in createConfig() or create())')
export const PAYWIREDEP003 = define('PAYWIREDEP003',
  'GatewayFactoryInterface.createConfig()', 'configureContainer()',
  'read a factory\'s defaults from configureContainer(); gateway options override them through addGateway().',
  'createConfig() is called')
export const PAYWIREDEP004 = define('PAYWIREDEP004',
  'GatewayFactoryInterface.create()', 'createGateway()',
  'extend CoreGatewayFactory, whose createGateway(container) the registry calls; build gateways with addGateway() and getGateway().',
  'create() is called, also when the registry builds the gateway of a 1.x factory')
export const PAYWIREDEP005 = define('PAYWIREDEP005',
  'The paywire.action.*, paywire.extension.*, paywire.prepend_actions and paywire.prepend_extensions config keys', 'getActions() and getExtensions()',
  'return action classes from getActions() and extensions from getExtensions(); give an action or extension that must come first a `readonly prepend = true` property.',
  'create() meets such a key, or a non-empty prepend list, set by the factory or the user')
export const PAYWIREDEP006 = define('PAYWIREDEP006',
  'The paywire.api.* and paywire.prepend_apis config keys and Gateway.addApi()', 'an autowire() definition of the API class',
  'define it in configureContainer() with autowire(Api).constructor(get(\'<factory>.<name>\'), ...) and inject it into the actions that use it.',
  'Gateway.addApi() is called, also for each paywire.api.* key')
export const PAYWIREDEP007 = define('PAYWIREDEP007',
  'ApiAwareInterface and the ApiAware mixin (apiClass, setApi)', 'constructor injection',
  'take the API as a constructor parameter named api (a readonly property) and wire it with autowire(Action).constructorParameter(\'api\', get(Api)).',
  'an ApiAware action is constructed, or a gateway gives an API to an ApiAwareInterface action')
export const PAYWIREDEP008 = define('PAYWIREDEP008',
  'The httplug.client config key', 'the HttpClient service',
  'inject get(HttpClient) into the API class; replace the client for every gateway with builder.addGlobalService(HttpClient, client).',
  'the key is read from a 1.x config')
export const PAYWIREDEP009 = define('PAYWIREDEP009',
  'The httplug.stream_factory config key', 'a string body',
  'put the body, as a string, in the body field of the HttpRequest given to HttpClient.send().',
  'the key is read from a 1.x config')
export const PAYWIREDEP010 = define('PAYWIREDEP010',
  'The httplug.message_factory config key', 'an HttpRequest object',
  'pass { method, url, headers, body } to HttpClient.send().',
  'the key is read from a 1.x config')
export const PAYWIREDEP011 = define('PAYWIREDEP011',
  'The mutable config object (LegacyConfig) used as a service by config closures', 'the gateway\'s container',
  'declare services with autowire() or factory((container) => ...) in configureContainer() and read values with get(\'<factory>.<name>\').',
  'a closure the factory or the user put in a 1.x config is resolved')

export const PAYWIREDEP012 = define('PAYWIREDEP012',
  'NotifyNullAction of the PayPal gateways (paywire/gateways/paypal-rest, paywire/gateways/paypal-checkout)', 'LocateWebhookAction',
  'list LocateWebhookAction instead: it verifies a webhook and says where its payment is, and the notify route (Paywire.receiveNotification()) runs the payment\'s Notify itself.',
  'a NotifyNullAction is constructed')

/** Every deprecation, in code order. */
export const DEPRECATIONS: readonly Deprecation[] = [
  PAYWIREDEP001, PAYWIREDEP002, PAYWIREDEP003, PAYWIREDEP004, PAYWIREDEP005, PAYWIREDEP006,
  PAYWIREDEP007, PAYWIREDEP008, PAYWIREDEP009, PAYWIREDEP010, PAYWIREDEP011, PAYWIREDEP012
]

export function findDeprecation (code: string): Deprecation | undefined {
  return DEPRECATIONS.find((deprecation) => deprecation.code === code)
}

/** Warns (once per process) and tells every active recorder. */
export function deprecate (deprecation: Deprecation): void {
  deprecation.warning()
  // Per async chain, so a warning raised after an `await` inside `run` is still recorded, and a
  // concurrent chain's warnings never are.
  for (const recorder of chainFrame().recorders ?? []) {
    if (!recorder.open) continue
    const { codes } = recorder
    if (!Array.isArray(codes)) codes.add(deprecation.code)
    else if (!codes.includes(deprecation.code)) codes.push(deprecation.code)
  }
}

/**
 * Runs `run`, adding to `codes` (an array, or a Set) the code of every deprecated path it goes
 * through, once each, also when it throws. An async `run` is followed until its promise
 * settles, across its awaits.
 */
export function recordDeprecations<T> (codes: string[] | Set<string>, run: () => T): T {
  const recorder: DeprecationRecorder = { codes, open: true }
  const frame = chainFrame()
  let result: T
  try {
    result = runInFrame(frame.withRecorders([...(frame.recorders ?? []), recorder]), run)
  } catch (error) {
    recorder.open = false
    throw error
  }
  if (!isPromiseLike(result)) {
    recorder.open = false
    return result
  }
  return Promise.resolve(result).finally(() => { recorder.open = false }) as T
}

function isPromiseLike (value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
}
