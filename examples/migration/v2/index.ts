export { AcmeGatewayFactory } from './acme-gateway-factory.ts'
export { AcmeApi } from './acme-api.ts'
export { CaptureAction, RefundAction } from './actions.ts'
