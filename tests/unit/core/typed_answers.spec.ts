import { test } from '@japa/runner'
import { readFile, writeFile, rm } from 'node:fs/promises'
import app from '@adonisjs/core/services/app'
import ts from 'typescript'

const FIXTURE = 'tests/unit/core/fixtures/typed_answers.ts'

/** The type errors of the fixture compiled without its @ts-expect-error lines, by line number. */
async function errorLinesWithoutExpectations(): Promise<{ expected: number[]; found: number[] }> {
  const source = await readFile(app.makePath(FIXTURE), 'utf8')
  const lines = source.split('\n')
  const expected: number[] = []
  // The marked line is blanked (line numbers kept): the error must then show on the next one.
  const stripped = lines.map((line, index) => {
    if (!line.trim().startsWith('// @ts-expect-error')) return line
    expected.push(index + 2)
    return ''
  })
  const copy = app.makePath('tests/unit/core/fixtures/typed_answers_unmarked.ts')
  await writeFile(copy, stripped.join('\n'))
  try {
    const config = ts.getParsedCommandLineOfConfigFile(app.makePath('tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!
    const program = ts.createProgram([copy], { ...config.options, noEmit: true, noUnusedLocals: false })
    const file = program.getSourceFile(copy)!
    const found = ts
      .getPreEmitDiagnostics(program, file)
      .filter((diagnostic) => diagnostic.file === file)
      .map((diagnostic) => file.getLineAndCharacterOfPosition(diagnostic.start!).line + 1)
    return { expected, found: [...new Set(found)].sort((a, b) => a - b) }
  } finally {
    await rm(copy, { force: true })
  }
}

test.group('Typed answers (JsonOf)', () => {
  test('a resource function missing a required field, adding one, or of the wrong type fails the type check, and so do a page of them (PageOf), a rule\'s conditions and actions, a settings section and a section\'s defaults; a complete one passes', async ({ assert }) => {
    const { expected, found } = await errorLinesWithoutExpectations()
    assert.lengthOf(expected, 23)
    assert.deepEqual(found, expected)
  }).timeout(60_000)
})
