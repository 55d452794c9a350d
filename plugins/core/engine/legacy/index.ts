/*
 * The version 1.x gateway-factory style, kept working next to the 2.0 style and deprecated:
 * everything here goes away in the next major version. MIGRATION.md shows the 2.0 replacement of each item.
 */
// Gateway.addApi() and Gateway.apis, added to the kernel's Gateway while 1.x is supported.
import './gateway-apis.ts'
// Gateways of 1.x factories, built by the registry through their create().
import './registry-bridge.ts'

export { ApiAware, isApiAware, type ApiAwareInterface } from './api-aware.ts'
export { LegacyConfig, type ConfigClosure } from './config.ts'
export { GatewayFactory, isLegacyGatewayFactory, type GatewayFactoryInterface } from './gateway-factory.ts'
export { LegacyMessageFactory, LegacyStreamFactory } from './httplug.ts'
export { legacyDeprecationsOf } from './registry-bridge.ts'
export { diagnosePaywire, type GatewayDiagnosis, type DiagnosisError } from './doctor.ts'
