import { isAction, type Action } from '../kernel/actions/action.ts'
import { CheckpointAction } from '../kernel/actions/checkpoint-action.ts'
import { AuthorizePaymentAction, CapturePaymentAction, PayoutPayoutAction } from '../kernel/actions/convert-and-execute-action.ts'
import { ExecuteSameRequestWithModelDetailsAction } from '../kernel/actions/execute-same-request-with-model-details-action.ts'
import { GetCurrencyAction } from '../kernel/actions/get-currency-action.ts'
import { GetHttpRequestAction } from '../kernel/actions/get-http-request-action.ts'
import { GetTokenAction } from '../kernel/actions/get-token-action.ts'
import { RenderTemplateAction } from '../kernel/actions/render-template-action.ts'
import { StatusFromReaderAction } from '../kernel/actions/status-from-reader-action.ts'
import { humanifyValue } from '../observability/humanify.ts'
import { autowire, factory, get, serviceId, type Class, type ContainerConfiguration } from '../di/definitions.ts'
import { resolveDefinition, type ServiceContainer } from '../di/service-container.ts'
import { PAYWIRE_ERR_INVALID_ACTION_ENTRY, PAYWIRE_ERR_INVALID_EXTENSION_ENTRY } from '../errors.ts'
import { EndlessCycleDetectorExtension } from '../kernel/extensions/endless-cycle-detector-extension.ts'
import { isExtension, type Extension } from '../kernel/extensions/extension.ts'
import { Gateway } from '../kernel/gateway.ts'
import { PaymentStateReader } from '../requests/payment-state.ts'
import { TokenStorage } from '../security/token-storage.ts'
import { StatusTransitions } from '../kernel/status-transitions.ts'
import { TemplateRenderer } from '../kernel/template-renderer.ts'

export type ActionEntry = Class<Action>
export type ExtensionEntry = Class<Extension> | Extension

/** What the registry needs from a 2.0 gateway factory. */
export interface ContainerGatewayFactory {
  /**
   * The prefix of this factory's option keys ("paypal_rest" for "paypal_rest.client_id"),
   * so the factory keeps working when registered under another name. Default: that name.
   */
  readonly optionsPrefix?: string
  configureContainer (): ContainerConfiguration
  getActions (): ActionEntry[]
  getExtensions (): ExtensionEntry[]
  createGateway (container: ServiceContainer): Gateway
}

export function isContainerGatewayFactory (value: unknown): value is ContainerGatewayFactory {
  const candidate = value as Partial<ContainerGatewayFactory> | null
  return typeof candidate?.configureContainer === 'function' && typeof candidate.getActions === 'function' &&
    typeof candidate.getExtensions === 'function' && typeof candidate.createGateway === 'function'
}

/**
 * The base of every gateway factory (the 2.0 contract). A gateway factory extends it and
 * returns, from each method, the parent's entries plus its own:
 *
 *   configureContainer () {
 *     const parent = super.configureContainer()
 *     return {
 *       ...parent,
 *       'acme.api_key': '', 'acme.sandbox': true,
 *       [serviceId(AcmeApi)]: autowire(AcmeApi).constructor(get('acme.api_key'), get('acme.sandbox')),
 *       [serviceId(CaptureAction)]: autowire(CaptureAction).constructorParameter('api', get(AcmeApi)),
 *       'paywire.paths': { ...parent['paywire.paths'], Acme: templatesDir }
 *     }
 *   }
 *   getActions () { return [...super.getActions(), CaptureAction, StatusAction] }
 *
 * where CaptureAction lists its constructor parameter names: `static readonly inject = ['api']`.
 */
export class CoreGatewayFactory implements ContainerGatewayFactory {
  configureContainer (): ContainerConfiguration {
    return {
      'paywire.paths': {},
      'paywire.template.layout': '@PaywireCore/layout.html',
      [serviceId(TemplateRenderer)]: factory((container) => new TemplateRenderer(container.get('paywire.paths'))),
      [serviceId(RenderTemplateAction)]: autowire(RenderTemplateAction)
        .constructor(get(TemplateRenderer), get('paywire.template.layout')),
      [serviceId(GetTokenAction)]: autowire(GetTokenAction).constructorParameter('tokenStorage', get(TokenStorage)),
      // Forward only; a gateway factory with its own rules registers its own table here.
      [serviceId(StatusTransitions)]: factory(() => new StatusTransitions())
    }
  }

  getActions (): ActionEntry[] {
    return [
      GetHttpRequestAction,
      CapturePaymentAction,
      AuthorizePaymentAction,
      PayoutPayoutAction,
      ExecuteSameRequestWithModelDetailsAction,
      RenderTemplateAction,
      GetCurrencyAction,
      GetTokenAction,
      CheckpointAction
    ]
  }

  getExtensions (): ExtensionEntry[] {
    return [EndlessCycleDetectorExtension]
  }

  /**
   * Resolves every action and extension from the gateway's container (so their constructor
   * dependencies are injected) and registers them in list order. Override only for what
   * the two lists cannot express, and call super.
   */
  createGateway (container: ServiceContainer): Gateway {
    const gateway = new Gateway()
    const owner = this.constructor.name
    for (const entry of this.getActions()) {
      if (typeof entry !== 'function') throw new PAYWIRE_ERR_INVALID_ACTION_ENTRY(owner, `an instance of ${humanifyValue(entry)}`)
      const action = resolveClass(entry, container)
      if (!isAction(action)) throw new PAYWIRE_ERR_INVALID_ACTION_ENTRY(owner, `${entry.name}, which has no supports()/execute()`)
      gateway.addAction(action)
    }
    // Statuses come from the gateway's state reader, its one statement of them; after the
    // gateway's own actions, so a hand-written status action still answers first.
    if (container.has(PaymentStateReader)) gateway.addAction(new StatusFromReaderAction(container.get(PaymentStateReader)))
    for (const entry of this.getExtensions()) {
      const extension = typeof entry === 'function' ? resolveClass(entry, container) : entry
      if (!isExtension(extension)) throw new PAYWIRE_ERR_INVALID_EXTENSION_ENTRY(owner, humanifyValue(extension))
      gateway.addExtension(extension)
    }
    return gateway
  }
}

/** A class registered in configureContainer() comes from there; any other class is autowired. */
function resolveClass<T> (entry: Class<T>, container: ServiceContainer): T {
  if (container.has(entry)) return container.get(entry)
  return resolveDefinition(autowire(entry), container) as T
}
