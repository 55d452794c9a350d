export * as consoleErrorCodes from './codes.ts'
export { paywireConsole, paywireConsole as default } from './plugin.ts'
export {
  DEFAULT_CONSOLE_PAGE_SIZE, DEFAULT_CONSOLE_PREFIX, validateConsoleOptions,
  type ConsoleAuthorize, type ConsoleOperation, type PaywireConsoleOptions
} from './options.ts'
export { CONSOLE_CSP } from './html.ts'
export { CSRF_COOKIE, CSRF_FIELD } from './csrf.ts'
