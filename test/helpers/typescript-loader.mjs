// `node --import=./test/helpers/typescript-loader.mjs`: loads .ts files through typescript-hooks.mjs.
import { register } from 'node:module'

register('./typescript-hooks.mjs', import.meta.url)
