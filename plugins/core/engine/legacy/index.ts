/*
 * The version 1.x gateway-factory style, kept working in 2.0 and deprecated: everything here
 * goes away in 3.0. MIGRATION.md shows the 2.0 replacement of each item.
 */
export { ApiAware, isApiAware, type ApiAwareInterface } from './api-aware.ts'
export { LegacyConfig, type ConfigClosure } from './config.ts'
export { GatewayFactory, isLegacyGatewayFactory, type GatewayFactoryInterface } from './gateway-factory.ts'
export { LegacyMessageFactory, LegacyStreamFactory } from './httplug.ts'
export { legacyDeprecationsOf } from './registry-bridge.ts'
export { diagnosePaywire, type GatewayDiagnosis, type DiagnosisError } from './doctor.ts'
