import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { JobRunner } from '#core/jobs/job_runner'
import { ContactAudience } from '#modules/contacts/public'
import { ContactImports } from '#modules/contact_imports/services/contact_imports'
import { CONTACT_IMPORT_JOB, contactImportJob } from '#modules/contact_imports/jobs/contact_import_job'
import { LiveImports } from '#modules/contact_imports/listeners/live_imports'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { openLiveStream } from '#tests/helpers/live_stream'
import { eventually } from '#tests/helpers/phones'
import { useManualClock } from '#tests/helpers/clock'
import { clearMessaging, sendAs, setLocalPrefix } from '#tests/helpers/messages'
import type { ApiClient } from '@japa/api-client'

const admin = () => testKeys.admin
let folder: string

async function csvFile(name: string, text: string) {
  const path = join(folder, name)
  await writeFile(path, text)
  return path
}

/**
 * Text as Windows-1252 bytes (what Excel saves as plain "CSV" in Western European locales): the
 * Latin-1 letters as their own byte, and the few the tests use from 0x80 to 0x9F.
 */
function windows1252(text: string): Buffer {
  const high: Record<string, number> = { '€': 0x80, '’': 0x92, 'Œ': 0x8c, '“': 0x93, '”': 0x94, '–': 0x96 }
  return Buffer.from([...text].map((char) => high[char] ?? (char.charCodeAt(0) < 0x80 || char.charCodeAt(0) >= 0xa0 ? char.charCodeAt(0) : 0x3f)))
}

async function bytesFile(name: string, bytes: Buffer) {
  const path = join(folder, name)
  await writeFile(path, bytes)
  return path
}

async function upload(client: ApiClient, path: string) {
  return client.post('/api/v1/contacts/imports').header('x-api-key', admin()).file('file', path)
}

/** The import job on a runner of the test's own, as the gateway runs it (`progressed`: what the gateway tells of its progress, nothing by default). */
async function useImportJob(progressed: (id: number, final: boolean) => void = () => {}) {
  const { clock, restore } = useManualClock('2026-11-23T10:00:00.000Z')
  await db.from('scheduled_jobs').delete()
  const runner = new JobRunner(clock, db, logger)
  runner.register(contactImportJob(() => app.container.make(ContactImports), progressed))
  app.container.swap(JobRunner, () => runner)
  await runner.start()
  return {
    runner,
    clock,
    async stop() {
      await runner.stop()
      app.container.restore(JobRunner)
      restore()
    },
  }
}

test.group('Contact import from a CSV', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    folder = await mkdtemp(join(tmpdir(), 'contact-import-'))
    await db.from('contact_imports').delete()
    await db.from('contact_group_members').delete()
    await db.from('contact_groups').delete()
    await clearMessaging()
    await setLocalPrefix('+33')
    return () => rm(folder, { recursive: true, force: true })
  })

  test('the upload answers its columns, a sample and a mapping: the phone column found by its header or its content', async ({ client, assert }) => {
    // A spreadsheet export with a BOM and semicolons.
    const path = await csvFile('clients.csv', '\ufeffMobile;Prénom;Nom;Ville;Étiquettes\n06 12 34 56 78;Ada;Lovelace;Paris;vip,paris\n0612345679;Bob;;Lyon;\n')
    const uploaded = await upload(client, path)
    uploaded.assertStatus(201)
    assert.deepInclude(uploaded.body(), { status: 'awaiting_mapping', fileName: 'clients.csv', totalRows: 2, processedRows: 0 })
    assert.deepEqual(uploaded.body().columns, ['Mobile', 'Prénom', 'Nom', 'Ville', 'Étiquettes'])
    assert.deepEqual(uploaded.body().sample[0], ['06 12 34 56 78', 'Ada', 'Lovelace', 'Paris', 'vip,paris'])
    assert.deepEqual(uploaded.body().suggestedMapping, { phone: 'Mobile', firstName: 'Prénom', lastName: 'Nom', fields: { ville: 'Ville', etiquettes: 'Étiquettes' } })

    const byContent = await upload(client, await csvFile('raw.csv', 'who,contact\nAda,+33612345678\nBob,+33612345679\n'))
    assert.equal(byContent.body().suggestedMapping.phone, 'contact')
  })

  test('an import writes contacts: numbers completed, duplicates merged, existing ones updated, invalid rows by line, a target group', async ({ client, assert }) => {
    const jobs = await useImportJob()
    try {
      const existing = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345670', firstName: 'Old', company: 'Kept', tags: ['old'], blacklisted: true })
      await sendAs(client, { to: '+33612345671', body: 'Before the import' })
      const vip = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'VIP' })
      const path = await csvFile(
        'contacts.csv',
        [
          'phone,first,last,email,tags,city',
          '0612345670,Ada,,,new;vip,Paris', // existing contact: updated, stays opted out
          '0612345671,Bob,Builder,bob@example.com,,Lyon', // a conversation waits for this number
          ',No,Number,,,',
          'not a number,Bad,Number,,,',
          '0612345672,Cy,,not-an-email,,',
          '',
          '0612345673,Dee,,,,',
          '+33 6 12 34 56 73,,Dupont,,,Nice', // the same number again: merged
        ].join('\n')
      )
      const uploaded = await upload(client, path)
      const started = await client
        .post(`/api/v1/contacts/imports/${uploaded.body().id}/start`)
        .header('x-api-key', admin())
        .json({ mapping: { phone: 'phone', firstName: 'first', lastName: 'last', email: 'email', tags: 'tags', fields: { city: 'city' } }, groupId: vip.body().id })
      started.assertStatus(202)
      assert.equal(started.body().status, 'running')
      await jobs.runner.whenIdle()

      const done = (await client.get(`/api/v1/contacts/imports/${uploaded.body().id}`).header('x-api-key', testKeys.read)).body()
      assert.deepInclude(done, { status: 'completed', totalRows: 7, processedRows: 7, created: 2, updated: 1, merged: 1, invalid: 3, error: null })
      const errors = (await client.get(`/api/v1/contacts/imports/${uploaded.body().id}/errors`).header('x-api-key', testKeys.read)).body()
      assert.deepEqual(errors.data, [
        { row: 4, reason: 'No phone number' },
        { row: 5, reason: 'Not a valid phone number' },
        { row: 6, reason: 'Not a valid e-mail address' },
      ])
      assert.notInclude(JSON.stringify(errors), 'not-an-email')

      const contact = async (phone: string) => (await client.get('/api/v1/contacts').qs({ phone }).header('x-api-key', testKeys.read)).body().data[0]
      assert.deepInclude(await contact('+33612345670'), { id: existing.body().id, firstName: 'Ada', company: 'Kept', tags: ['old', 'new', 'vip'], fields: { city: 'Paris' }, blacklisted: true })
      assert.deepInclude(await contact('+33612345671'), { firstName: 'Bob', lastName: 'Builder', email: 'bob@example.com' })
      assert.deepInclude(await contact('+33612345673'), { firstName: 'Dee', lastName: 'Dupont', fields: { city: 'Nice' } })
      assert.isUndefined(await contact('+33612345672'))
      // The waiting conversation now belongs to its contact.
      const conversation = await db.from('conversations').where('phone', '+33612345671').first()
      assert.equal(String(conversation.contact_id), (await contact('+33612345671')).id)
      // Everyone imported joined the group; the import's contacts make an audience.
      assert.equal((await client.get(`/api/v1/groups/${vip.body().id}`).header('x-api-key', testKeys.read)).body().memberCount, 3)
      const members: string[] = []
      for await (const page of new ContactAudience().members({ groupIds: [], contactIds: [], importIds: [Number(uploaded.body().id)] })) members.push(...page.map((member) => member.phone))
      assert.deepEqual(members.sort(), ['+33612345670', '+33612345671', '+33612345673'])

      const again = await client.post(`/api/v1/contacts/imports/${uploaded.body().id}/start`).header('x-api-key', admin()).json({ mapping: { phone: 'phone' } })
      again.assertStatus(409)
      assert.equal(again.body().error.code, 'IMPORT_ALREADY_STARTED')
    } finally {
      await jobs.stop()
    }
  })

  test('a dashboard subscribed to `imports` sees the import end, as the API answers it without its sample and previews', async ({ client, assert }) => {
    const live = await app.container.make(LiveImports)
    const jobs = await useImportJob((id, final) => void live.progressed(id, final))
    const stream = await openLiveStream(client, await signInAs(client, 'readonly'), 'imports')
    try {
      const vip = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'Live VIP' })
      const path = await csvFile('live.csv', ['phone,first,city', '0612345680,Ann,Paris', 'not a number,Bad,Lyon'].join('\n'))
      const uploaded = await upload(client, path)
      const id = uploaded.body().id
      ;(
        await client
          .post(`/api/v1/contacts/imports/${id}/start`)
          .header('x-api-key', admin())
          .json({ mapping: { phone: 'phone', firstName: 'first', fields: { city: 'city' } }, groupId: vip.body().id })
      ).assertStatus(202)
      await jobs.runner.whenIdle()
      // Every payload the stream received was checked against the channel's schema on the way.
      await eventually(() => stream.events().some((event) => (event.import as { status?: string }).status === 'completed'))
      const last = stream.events().at(-1)!
      const { sample: _sample, previews: _previews, ...answered } = (await client.get(`/api/v1/contacts/imports/${id}`).header('x-api-key', testKeys.read)).body()
      assert.deepEqual(last, { type: 'import.progress', import: answered })
      assert.notInclude(JSON.stringify(stream.events()), 'Ann')
    } finally {
      stream.close()
      await jobs.stop()
    }
  })

  test('a restart in the middle resumes after the last committed chunk: nothing twice, nothing lost', async ({ client, assert }) => {
    const rows = Array.from({ length: 2500 }, (_, index) => `+336${String(10_000_000 + index).padStart(8, '0')},P${index}`)
    const path = await csvFile('big.csv', `phone,name\n${rows.join('\n')}\n${rows[0].split(',')[0]},Again\n`)
    const uploaded = await upload(client, path)
    const vip = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'Big' })
    await client.post(`/api/v1/contacts/imports/${uploaded.body().id}/start`).header('x-api-key', admin()).json({ mapping: { phone: 'phone', firstName: 'name' }, groupId: vip.body().id })
    const id = Number(uploaded.body().id)

    // The gateway stops after the first chunk is committed.
    const imports = await app.container.make(ContactImports)
    await imports.run(id, { interrupted: () => true })
    const cut = (await client.get(`/api/v1/contacts/imports/${id}`).header('x-api-key', testKeys.read)).body()
    assert.deepInclude(cut, { status: 'running', processedRows: 1000, created: 1000 })
    assert.equal(Number((await db.from('contacts').count('* as n'))[0].n), 1000)

    // Started again: the job resumes from row 1,001.
    const jobs = await useImportJob()
    try {
      await jobs.runner.whenIdle()
      assert.isTrue(jobs.runner.has(CONTACT_IMPORT_JOB))
    } finally {
      await jobs.stop()
    }
    const done = (await client.get(`/api/v1/contacts/imports/${id}`).header('x-api-key', testKeys.read)).body()
    assert.deepInclude(done, { status: 'completed', processedRows: 2501, created: 2500, updated: 0, merged: 1, invalid: 0 })
    assert.equal(Number((await db.from('contacts').count('* as n'))[0].n), 2500)
    assert.equal(Number((await db.from('contact_group_members').count('* as n'))[0].n), 2500)
    assert.equal(Number((await db.from('contact_import_contacts').where('import_id', id).count('* as n'))[0].n), 2500)
    assert.equal((await db.from('contacts').where('phone', rows[0].split(',')[0]).first()).first_name, 'Again')
  })

  test('an upload nobody starts is dropped after a day, its file with it', async ({ client, assert }) => {
    const jobs = await useImportJob()
    try {
      const uploaded = await upload(client, await csvFile('forgotten.csv', 'phone\n+33612345678\n'))
      const stored = (await db.from('contact_imports').where('id', uploaded.body().id).first()).stored_file
      const file = join(ContactImports.folder, stored)
      assert.isTrue(existsSync(file))
      await jobs.clock.advance(23 * 3600_000)
      await jobs.runner.whenIdle()
      assert.equal((await client.get(`/api/v1/contacts/imports/${uploaded.body().id}`).header('x-api-key', testKeys.read)).body().status, 'awaiting_mapping')
      await jobs.clock.advance(3600_000)
      await jobs.runner.whenIdle()
      const dropped = (await client.get(`/api/v1/contacts/imports/${uploaded.body().id}`).header('x-api-key', testKeys.read)).body()
      assert.deepInclude(dropped, { status: 'failed', error: 'Never started: the file was dropped after 24 hours' })
      assert.isFalse(existsSync(file))
      const late = await client.post(`/api/v1/contacts/imports/${uploaded.body().id}/start`).header('x-api-key', admin()).json({ mapping: { phone: 'phone' } })
      late.assertStatus(409)
    } finally {
      await jobs.stop()
    }
  })

  test('a Windows-1252 file is detected, previewed with its accents and imported with the right names', async ({ client, assert }) => {
    const jobs = await useImportJob()
    try {
      // Excel's plain "CSV" in a French locale: semicolons, one byte per accented letter.
      const path = await bytesFile(
        'clients.csv',
        windows1252('Téléphone;Prénom;Nom;Société\r\n06 12 34 56 78;Zoë;Müller;Café Ñandú\r\n0612345679;José;Gonçalves;L’Œuf à 5 €\r\n0612345680;Renée;Þórsdóttir;\r\n')
      )
      const uploaded = await upload(client, path)
      uploaded.assertStatus(201)
      const body = uploaded.body()
      assert.equal(body.encoding, 'windows-1252')
      assert.deepEqual(body.columns, ['Téléphone', 'Prénom', 'Nom', 'Société'])
      assert.deepEqual(body.sample[0], ['06 12 34 56 78', 'Zoë', 'Müller', 'Café Ñandú'])
      assert.deepEqual(body.suggestedMapping, { phone: 'Téléphone', firstName: 'Prénom', lastName: 'Nom', company: 'Société', fields: {} })
      // The preview of each encoding: the one detected reads right, UTF-8 would garble the accents.
      assert.deepEqual(body.previews['windows-1252'], { columns: body.columns, sample: body.sample, suggestedMapping: body.suggestedMapping })
      assert.deepEqual(body.previews['utf-8'].sample[0].slice(1, 3), ['Zo\ufffd', 'M\ufffdller'])

      const started = await client
        .post(`/api/v1/contacts/imports/${body.id}/start`)
        .header('x-api-key', admin())
        .json({ mapping: { phone: 'Téléphone', firstName: 'Prénom', lastName: 'Nom', company: 'Société' } })
      started.assertStatus(202)
      assert.deepInclude(started.body(), { encoding: 'windows-1252', previews: null })
      await jobs.runner.whenIdle()
      assert.deepInclude((await client.get(`/api/v1/contacts/imports/${body.id}`).header('x-api-key', testKeys.read)).body(), { status: 'completed', created: 3, invalid: 0 })

      const contact = async (phone: string) => (await client.get('/api/v1/contacts').qs({ phone }).header('x-api-key', testKeys.read)).body().data[0]
      assert.deepInclude(await contact('+33612345678'), { firstName: 'Zoë', lastName: 'Müller', company: 'Café Ñandú' })
      assert.deepInclude(await contact('+33612345679'), { firstName: 'José', lastName: 'Gonçalves', company: 'L’Œuf à 5 €' })
      assert.deepInclude(await contact('+33612345680'), { firstName: 'Renée', lastName: 'Þórsdóttir' })
    } finally {
      await jobs.stop()
    }
  })

  test('one byte that is not UTF-8 far into the file makes it Windows-1252; a UTF-16 file is refused, saying how to save it', async ({ client, assert }) => {
    const plain = Array.from({ length: 5000 }, (_, index) => `+336${String(10_000_000 + index).padStart(8, '0')},Client ${index}`)
    const late = await upload(client, await bytesFile('late.csv', windows1252(`phone,name\n${plain.join('\n')}\n+33699999999,Zoë\n`)))
    late.assertStatus(201)
    assert.equal(late.body().encoding, 'windows-1252')
    const ascii = await upload(client, await bytesFile('ascii.csv', Buffer.from('phone,name\n+33612345678,Zoe\n')))
    assert.equal(ascii.body().encoding, 'utf-8')

    for (const [name, bytes] of [
      ['unicode.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('phone\tname\r\n+33612345678\tZoë\r\n', 'utf16le')])],
      ['no-bom.txt', Buffer.from('phone\tname\r\n+33612345678\tZoë\r\n', 'utf16le')],
    ] as const) {
      const refused = await upload(client, await bytesFile(name, bytes))
      refused.assertStatus(400)
      assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
      assert.equal(refused.body().error.details[0].field, 'file')
      assert.include(refused.body().error.message, 'UTF-16')
      assert.include(refused.body().error.message, 'CSV UTF-8')
    }
  })

  test('a UTF-8 file with a BOM is read as UTF-8 and imported with its accents', async ({ client, assert }) => {
    const jobs = await useImportJob()
    try {
      const uploaded = await upload(client, await csvFile('utf8.csv', '\ufeffphone,first name,last name\n+33612345678,Zoë,Müller\n+33612345679,José,Ñúñez\n'))
      uploaded.assertStatus(201)
      assert.equal(uploaded.body().encoding, 'utf-8')
      assert.deepEqual(uploaded.body().columns, ['phone', 'first name', 'last name'])
      assert.deepEqual(uploaded.body().sample[0], ['+33612345678', 'Zoë', 'Müller'])
      // Read as Windows-1252, the same bytes would be the familiar garble.
      assert.deepEqual(uploaded.body().previews['windows-1252'].sample[0], ['+33612345678', 'ZoÃ«', 'MÃ¼ller'])
      await client
        .post(`/api/v1/contacts/imports/${uploaded.body().id}/start`)
        .header('x-api-key', admin())
        .json({ mapping: uploaded.body().suggestedMapping })
        .then((started) => started.assertStatus(202))
      await jobs.runner.whenIdle()
      const contact = async (phone: string) => (await client.get('/api/v1/contacts').qs({ phone }).header('x-api-key', testKeys.read)).body().data[0]
      assert.deepInclude(await contact('+33612345678'), { firstName: 'Zoë', lastName: 'Müller' })
      assert.deepInclude(await contact('+33612345679'), { firstName: 'José', lastName: 'Ñúñez' })
    } finally {
      await jobs.stop()
    }
  })

  test('the mapping step’s encoding is honoured: the columns and rows are read with it, and an unknown one is refused', async ({ client, assert }) => {
    const jobs = await useImportJob()
    try {
      // Valid UTF-8, so detected as such; but the person mapping knows the file says otherwise.
      const uploaded = await upload(client, await csvFile('mojibake.csv', 'phone,Prénom\n+33612345678,Zoë\n'))
      assert.equal(uploaded.body().encoding, 'utf-8')
      const id = uploaded.body().id
      const start = (json: object) => client.post(`/api/v1/contacts/imports/${id}/start`).header('x-api-key', admin()).json(json)

      const unknown = await start({ mapping: { phone: 'phone' }, encoding: 'utf-16' })
      unknown.assertStatus(400)
      assert.equal(unknown.body().error.details[0].field, 'encoding')
      // The mapping names the columns as the chosen encoding reads them.
      const asDetected = await start({ mapping: { phone: 'phone', firstName: 'Prénom' }, encoding: 'windows-1252' })
      asDetected.assertStatus(400)
      assert.equal(asDetected.body().error.details[0].field, 'mapping.firstName')

      const started = await start({ mapping: { phone: 'phone', firstName: 'PrÃ©nom' }, encoding: 'windows-1252' })
      started.assertStatus(202)
      assert.deepInclude(started.body(), { encoding: 'windows-1252', columns: ['phone', 'PrÃ©nom'], sample: [['+33612345678', 'ZoÃ«']], previews: null })
      await jobs.runner.whenIdle()
      const contact = (await client.get('/api/v1/contacts').qs({ phone: '+33612345678' }).header('x-api-key', testKeys.read)).body().data[0]
      assert.equal(contact.firstName, 'ZoÃ«')

      // And the other way: a Windows-1252 file read as UTF-8 on purpose.
      const other = await upload(client, await bytesFile('latin.csv', windows1252('phone,name\n+33612345679,José\n')))
      assert.equal(other.body().encoding, 'windows-1252')
      await client
        .post(`/api/v1/contacts/imports/${other.body().id}/start`)
        .header('x-api-key', admin())
        .json({ mapping: { phone: 'phone', firstName: 'name' }, encoding: 'utf-8' })
        .then((answer) => answer.assertStatus(202))
      await jobs.runner.whenIdle()
      const garbled = (await client.get('/api/v1/contacts').qs({ phone: '+33612345679' }).header('x-api-key', testKeys.read)).body().data[0]
      assert.equal(garbled.firstName, 'Jos\ufffd')
    } finally {
      await jobs.stop()
    }
  })

  test('bad uploads get clear refusals: not multipart, no file, empty, header only, too many rows, a mapping naming no column', async ({ client, assert }) => {
    const json = await client.post('/api/v1/contacts/imports').header('x-api-key', admin()).json({ file: 'x' })
    json.assertStatus(415)
    const noFile = await client.post('/api/v1/contacts/imports').header('x-api-key', admin()).field('name', 'x')
    noFile.assertStatus(400)
    assert.equal(noFile.body().error.details[0].field, 'file')
    const empty = await upload(client, await csvFile('empty.csv', ''))
    empty.assertStatus(400)
    assert.include(empty.body().error.message, 'empty')
    const headerOnly = await upload(client, await csvFile('header.csv', 'phone,name\n'))
    headerOnly.assertStatus(400)
    const tooMany = await upload(client, await csvFile('many.csv', `phone\n${'+33612345678\n'.repeat(100_001)}`))
    tooMany.assertStatus(400)
    assert.include(tooMany.body().error.message, '100,000')

    const uploaded = await upload(client, await csvFile('ok.csv', 'phone,name\n+33612345678,Ada\n'))
    const wrong = await client.post(`/api/v1/contacts/imports/${uploaded.body().id}/start`).header('x-api-key', admin()).json({ mapping: { phone: 'mobile' } })
    wrong.assertStatus(400)
    assert.equal(wrong.body().error.details[0].field, 'mapping.phone')
    const badKey = await client.post(`/api/v1/contacts/imports/${uploaded.body().id}/start`).header('x-api-key', admin()).json({ mapping: { phone: 'phone', fields: { name: 'name' } } })
    badKey.assertStatus(400)
    const noGroup = await client.post(`/api/v1/contacts/imports/${uploaded.body().id}/start`).header('x-api-key', admin()).json({ mapping: { phone: 'phone' }, groupId: '999999' })
    noGroup.assertStatus(404)
    ;(await client.get('/api/v1/contacts/imports/999999').header('x-api-key', testKeys.read)).assertStatus(404)
    const listed = await client.get('/api/v1/contacts/imports').header('x-api-key', testKeys.read)
    assert.isAtLeast(listed.body().data.length, 1)
  }).timeout(60_000)
})
