import { test } from '@japa/runner'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DataFolder } from '#core/data_folder/data_folder'

test.group('DataFolder', (group) => {
  let root: string
  group.each.setup(() => {
    root = join(mkdtempSync(join(tmpdir(), 'gateway-folder-')), 'data')
    return () => rmSync(join(root, '..'), { recursive: true, force: true })
  })

  test('prepare creates the folder, backups/, logs/ and a 32-byte secret.key readable by its owner only', ({ assert }) => {
    const folder = new DataFolder(root)
    folder.prepare()
    assert.isTrue(statSync(folder.backupsDir).isDirectory())
    assert.isTrue(statSync(folder.logsDir).isDirectory())
    const key = statSync(folder.masterKeyFile)
    assert.equal(key.size, 32)
    assert.equal(key.mode & 0o777, 0o600)
    assert.equal(folder.databaseFile, join(root, 'gateway.db'))
  })

  test('a second prepare keeps the existing master key', ({ assert }) => {
    const folder = new DataFolder(root)
    folder.prepare()
    const first = readFileSync(folder.masterKeyFile)
    folder.prepare()
    assert.isTrue(readFileSync(folder.masterKeyFile).equals(first))
  })

  test('derived keys are stable per purpose and differ between purposes', ({ assert }) => {
    const folder = new DataFolder(root)
    folder.prepare()
    assert.isTrue(folder.deriveKey('a').equals(folder.deriveKey('a')))
    assert.isFalse(folder.deriveKey('a').equals(folder.deriveKey('b')))
    assert.isFalse(folder.deriveKey('a').equals(folder.readMasterKey()))
  })

  test('a master key of the wrong size is refused, not used', ({ assert }) => {
    const folder = new DataFolder(root)
    folder.prepare()
    writeFileSync(folder.masterKeyFile, 'short')
    assert.throws(() => folder.readMasterKey(), /exactly 32 bytes/)
  })
})
