import { deprecate, PAYWIREDEP004, recordDeprecations } from '../deprecations.ts'
import { PAYWIRE_ERR_INVALID_GATEWAY_FACTORY } from '../errors.ts'
import { Gateway } from '../kernel/gateway.ts'
import type { Details } from '../model/array-object.ts'
import { addGatewayFactoryStyle, type GatewayBuild } from '../setup/gateway-registry.ts'
import { isLegacyGatewayFactory, type GatewayFactoryInterface } from './gateway-factory.ts'

declare module '../setup/gateway-registry.ts' {
  interface GatewayFactoryStyles {
    /** A 1.x factory (deprecated), built through its create(). */
    legacy: GatewayFactoryInterface
  }
}

const buildDeprecations = new WeakMap<Gateway, readonly string[]>()

/**
 * How the registry builds a gateway of a 1.x factory: through its create(config), with the
 * options as a flat 1.x config, so builder code is the same for both styles.
 */
export function createLegacyGateway (factory: GatewayFactoryInterface, build: GatewayBuild): Gateway {
  const codes = new Set<string>()
  const gateway = recordDeprecations(codes, () => {
    deprecate(PAYWIREDEP004)
    return factory.create(legacyConfigValues(build), build.container)
  })
  if (!(gateway instanceof Gateway)) throw new PAYWIRE_ERR_INVALID_GATEWAY_FACTORY(build.factoryName)
  buildDeprecations.set(gateway, [...codes].sort())
  return gateway
}

/** The deprecation codes met while the registry built this gateway (empty for 2.0 gateways). */
export function legacyDeprecationsOf (gateway: Gateway): readonly string[] {
  return buildDeprecations.get(gateway) ?? []
}

function legacyConfigValues ({ gatewayName, optionsPrefix, options }: GatewayBuild): Details {
  const config: Details = { 'paywire.gateway_name': gatewayName }
  const prefix = `${optionsPrefix}.`
  for (const [key, value] of Object.entries(options)) {
    if (key === 'factory') continue
    config[key.startsWith(prefix) ? key.slice(prefix.length) : key] = value
  }
  return config
}

// Loading 1.x support teaches every registry to build 1.x factories (through their create()).
addGatewayFactoryStyle({ accepts: isLegacyGatewayFactory, build: createLegacyGateway })
