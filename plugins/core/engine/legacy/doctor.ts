import {
  DEPRECATIONS, PAYWIREDEP001, PAYWIREDEP006, PAYWIREDEP007, recordDeprecations, type Deprecation
} from '../deprecations.ts'
import type { Gateway } from '../kernel/gateway.ts'
import type { Paywire } from '../setup/paywire.ts'
import { isApiAware, selectApi } from './api-aware.ts'
import { GatewayFactory, isLegacyGatewayFactory } from './gateway-factory.ts'
import { legacyDeprecationsOf } from './registry-bridge.ts'
import './gateway-apis.ts'

export interface DiagnosisError {
  code: string
  message: string
}

export interface GatewayDiagnosis {
  gateway: string
  /** Undefined for a gateway registered as a ready Gateway object. */
  factory: string | undefined
  style: '1.x' | '2.0' | undefined
  /** What breaks in the next major version, in code order. */
  deprecations: Deprecation[]
  /** What breaks now: the gateway cannot be built, or an action cannot get its API. */
  errors: DiagnosisError[]
}

/**
 * Builds every gateway of a Paywire and reports, per gateway, the deprecated paths it uses
 * and the errors met while building it and resolving its actions. One failing gateway does
 * not hide the others.
 */
export function diagnosePaywire (paywire: Paywire): GatewayDiagnosis[] {
  return paywire.getGatewayNames().map((name) => diagnoseGateway(paywire, name))
}

function diagnoseGateway (paywire: Paywire, name: string): GatewayDiagnosis {
  const factoryName = paywire.getGatewayOptions(name)?.factory
  const factory = factoryName !== undefined && paywire.getGatewayFactoryNames().includes(factoryName)
    ? paywire.getGatewayFactory(factoryName)
    : undefined
  const codes = new Set<string>()
  const errors: DiagnosisError[] = []
  // Constructed before the doctor ran, so its warning was not recorded here.
  if (factory instanceof GatewayFactory) codes.add(PAYWIREDEP001.code)
  try {
    const gateway = recordDeprecations(codes, () => paywire.getGateway(name))
    for (const code of legacyDeprecationsOf(gateway)) codes.add(code)
    inspectApis(gateway, codes, errors)
  } catch (error) {
    errors.push(toDiagnosisError(error))
  }
  return {
    gateway: name,
    factory: factoryName,
    style: factory === undefined ? undefined : isLegacyGatewayFactory(factory) ? '1.x' : '2.0',
    deprecations: DEPRECATIONS.filter((deprecation) => codes.has(deprecation.code)),
    errors
  }
}

/** The API injection a gateway does at lookup time, done now for every ApiAware action. */
function inspectApis (gateway: Gateway, codes: Set<string>, errors: DiagnosisError[]): void {
  if (gateway.apis.length > 0) codes.add(PAYWIREDEP006.code)
  for (const action of gateway.actions) {
    if (!isApiAware(action)) continue
    codes.add(PAYWIREDEP007.code)
    try {
      selectApi(action, gateway.apis)
    } catch (error) {
      errors.push(toDiagnosisError(error))
    }
  }
}

function toDiagnosisError (error: unknown): DiagnosisError {
  const { code, message } = error as { code?: unknown, message?: unknown }
  return {
    code: typeof code === 'string' ? code : (error as Error | null)?.name ?? 'Error',
    message: typeof message === 'string' ? message : String(error)
  }
}
