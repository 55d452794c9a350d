import { GetTokenAction } from '../kernel/actions/get-token-action.ts'
import type { CoreGatewayFactory } from '../setup/core-gateway-factory.ts'
import { autowire, type Class } from '../di/definitions.ts'
import { resolveDefinition, ServiceContainer } from '../di/service-container.ts'
import { HttpClient, UndiciHttpClient } from '../http-client.ts'
import { Logger, NullLogger } from '../observability/logger.ts'
import type { Details } from '../model/array-object.ts'
import { TokenStorage } from '../security/token-storage.ts'
import { engineEntry, type LegacyConfig } from './config.ts'
import { httpConfig } from './httplug.ts'

/** GetHttpRequestAction → "get_http_request", the key names 1.x configs used. */
export function configKeyName (className: string, suffix: string): string {
  return className.replace(new RegExp(`${suffix}$`), '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
}

/** Where create() builds when no registry gave it a container: the global services a builder would add. */
export function standaloneContainer (): ServiceContainer {
  return ServiceContainer.create().set(HttpClient, new UndiciHttpClient()).set(Logger, new NullLogger())
}

/**
 * The core defaults of a 1.x config, built from the 2.0 core factory so both styles get the
 * same core actions: each becomes a lazy paywire.action.<name> entry (a user key of the same
 * name replaces it), resolved from `container` with the templates the config ends up with.
 * Registers the core factory's definitions in `container`, a scope owned by this gateway.
 */
export function coreConfig (core: CoreGatewayFactory, container: ServiceContainer): Details {
  container.register(core.configureContainer())
  let templatesSynced = false
  const resolve = (target: Class, config: LegacyConfig): unknown => {
    if (!templatesSynced) {
      container.set('paywire.paths', config.get('paywire.paths')).set('paywire.template.layout', config.get('paywire.template.layout'))
      templatesSynced = true
    }
    return container.has(target) ? container.get(target) : resolveDefinition(autowire(target), container)
  }

  const entries: Details = {
    'paywire.template.layout': container.get('paywire.template.layout'),
    'paywire.paths': {},
    // Defaulted, unlike in Payum's DI branch, so configs with action keys never fail on them.
    'paywire.prepend_actions': [],
    'paywire.prepend_extensions': [],
    'paywire.prepend_apis': [],
    'paywire.default_options': {},
    'paywire.required_options': [],
    ...httpConfig(container)
  }
  for (const action of core.getActions()) {
    // As in 1.x: the token action only when there is a token storage to read.
    if (action === GetTokenAction && !container.has(TokenStorage)) continue
    entries[`paywire.action.${configKeyName(action.name, 'Action')}`] = engineEntry((config) => resolve(action, config))
  }
  for (const extension of core.getExtensions()) {
    const isClass = typeof extension === 'function'
    const key = `paywire.extension.${configKeyName(isClass ? extension.name : extension.constructor.name, 'Extension')}`
    entries[key] = engineEntry((config) => isClass ? resolve(extension, config) : extension)
  }
  return entries
}
