import { test } from '@japa/runner'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import ts from 'typescript'

const ROOT = new URL('../../../', import.meta.url).pathname
const CHECKED = ['app', 'config', 'providers', 'start', 'commands', 'bin', 'agent']
const SKIPPED_FOLDERS = new Set(['node_modules', 'build'])

/**
 * Pointers to documents a reader of this repository cannot open: a comment states its rule
 * itself, or cites the page of docs/ (or the README) that states it.
 */
// The two planning documents' names, spelled in pieces so this file names neither.
const PLANNING_DOCUMENTS = ['ARCHI' + 'TECTURE', 'ST' + 'ACK']
const OUTSIDE_POINTERS: Array<[RegExp, string]> = [
  ...PLANNING_DOCUMENTS.map((name): [RegExp, string] => [new RegExp(`\\b${name}\\b`), `${name}.md`]),
  [/\bthe spec\b(?!\.\w)/i, '"the spec"'],
  [/\(spec\b(?!\.\w)/i, '"(spec"'],
  [/\bspec(?:[,:]|'s\b|'d\b)/i, '"spec," / "spec:" / "spec\'s"'],
  [/\bissues? #?\d+/i, '"issue <n>"'],
  [/\(issue\b/i, '"(issue"'],
]

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => [])
  const files = await Promise.all(
    entries.map((entry) => {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? Promise.resolve([]) : sourceFiles(path)
      return Promise.resolve(/\.(ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [])
    })
  )
  return files.flat()
}

/** Every comment of a file with the line it starts on, read by the TypeScript parser (so a `//` inside a string or a regex is no comment). */
function commentsOf(path: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS)
  const seen = new Set<number>()
  const comments: Array<{ line: number; text: string }> = []
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue
      seen.add(range.pos)
      comments.push({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) })
    }
  }
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos))
    collect(ts.getTrailingCommentRanges(text, node.end))
    // Tokens are not visited by forEachChild: comments before a closing brace or a keyword hang on them.
    for (const child of node.getChildren(source)) {
      if (child.kind < ts.SyntaxKind.FirstNode) {
        collect(ts.getLeadingCommentRanges(text, child.pos))
        collect(ts.getTrailingCommentRanges(text, child.end))
      } else visit(child)
    }
  }
  visit(source)
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos))
  return comments
}

/** A `.md` file a comment names must be in the repository: README.md, or a page of docs/. */
function missingDocuments(comment: string): string[] {
  return [...comment.matchAll(/[\w./-]*\w\.md\b/g)]
    .map((match) => match[0])
    .filter((name) => !existsSync(join(ROOT, name)) && !existsSync(join(ROOT, 'docs', name)))
}

test.group('Self-contained comments', () => {
  test('no comment in the code points to a document outside the repository', async ({ assert }) => {
    const offenders: string[] = []
    for (const folder of CHECKED) {
      for (const file of await sourceFiles(join(ROOT, folder))) {
        const path = relative(ROOT, file)
        const text = await readFile(file, 'utf8')
        for (const comment of commentsOf(path, text)) {
          comment.text.split('\n').forEach((line, offset) => {
            const where = `${path}:${comment.line + offset}`
            for (const [pattern, name] of OUTSIDE_POINTERS) {
              if (pattern.test(line)) offenders.push(`${where} cites ${name}: ${line.trim()}`)
            }
            for (const name of missingDocuments(line)) offenders.push(`${where} names ${name}, which is not in the repository`)
          })
        }
      }
    }
    assert.deepEqual(offenders, [], 'state the rule in the comment, or cite the docs/ page that states it')
  })

  test('the check sees comments, not strings, and knows each kind of pointer', ({ assert }) => {
    const source = [
      "const url = 'http://example.com/a' // the spec, Errors",
      '/** Spec, Limits: 2 MiB. */',
      'const pattern = /\\/\\/ (issue 15)/',
      'function f() {',
      '  return 1',
      `  /* ${PLANNING_DOCUMENTS[0]}.md says so */`,
      '}',
      '// A name from settings_types.spec.ts, as docs/api-conventions.md says.',
    ].join('\n')
    const comments = commentsOf('example.ts', source).map((comment) => comment.text)
    assert.deepEqual(comments, [
      '// the spec, Errors',
      '/** Spec, Limits: 2 MiB. */',
      `/* ${PLANNING_DOCUMENTS[0]}.md says so */`,
      '// A name from settings_types.spec.ts, as docs/api-conventions.md says.',
    ])
    const flagged = comments.filter((comment) => OUTSIDE_POINTERS.some(([pattern]) => pattern.test(comment)))
    assert.deepEqual(flagged, comments.slice(0, 3))
    assert.deepEqual(missingDocuments('see docs/api-conventions.md and README.md'), [])
    assert.deepEqual(missingDocuments('see contract15.md'), ['contract15.md'])
  })
})
