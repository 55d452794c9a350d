/*
 * The version 1.x gateway-factory style, kept working next to the 2.0 style and deprecated:
 * everything here goes away in the next major version. MIGRATION.md shows the 2.0 replacement of each item.
 */
export { ApiAware, isApiAware, type ApiAwareInterface } from './api-aware.ts'
export { LegacyConfig, type ConfigClosure } from './config.ts'
export { GatewayFactory, isLegacyGatewayFactory, type GatewayFactoryInterface } from './gateway-factory.ts'
export { LegacyMessageFactory, LegacyStreamFactory } from './httplug.ts'
export { legacyDeprecationsOf } from './registry-bridge.ts'
export { diagnosePaywire, type GatewayDiagnosis, type DiagnosisError } from './doctor.ts'
