/* The demo's furniture, as app.ts uses it: app.ts is the shop, this folder what a demo needs around it. */
export { CheckoutForm, readCheckoutForm, type CheckoutOrder, type CheckoutValues } from './checkout-form.ts'
export { DemoConfigError, readEnvironment, type DemoEnvironment } from './environment.ts'
export { addDemoFurniture } from './furniture.ts'
export { serverOptions, type DemoShopOptions } from './options.ts'
export { checkoutPage } from './pages.ts'
export { PAYPAL_WEBHOOK_EVENTS, addPaypal, type PaypalCredentials } from './paypal.ts'
export { DEMO_RATE_LIMITS, type RateLimits } from './rate-limits.ts'
export { startDemo, startupMessage } from './start.ts'
