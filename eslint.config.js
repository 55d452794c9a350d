import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'coverage/**', '.tap/**'] }),
  {
    rules: {
      // TypeBox's idiom pairs a schema constant with its Static type under one name;
      // TypeScript itself rejects real redeclarations.
      '@typescript-eslint/no-redeclare': 'off'
    }
  }
]
