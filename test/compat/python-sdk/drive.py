# Drives every method of the hosted service's official Python client (postmark-python, typed pydantic
# models) against a mailroom seeded by run.ts, and prints one line per call: `ok`, or `FAIL` with the
# client's error (a validation error names the field and the value its model refused). See README.md here.
import asyncio, json, os
import postmark
from postmark.models.templates.enums import *  # noqa
from postmark.models.streams.enums import MessageStreamType
from postmark.models.servers.enums import ServerColor

URL = os.environ['MR_URL']; IDS = json.loads(os.environ['MR_IDS'])
results = []

async def call(name, coro):
    try:
        v = await coro
        results.append((name, 'ok', ''))
        return v
    except Exception as e:  # noqa
        msg = str(e).replace('\n', ' | ')[:1500]
        results.append((name, 'FAIL', f'{type(e).__name__}: {msg}'))
        return None

async def expect_error(name, coro, http_status, error_code):
    try:
        await coro
        results.append((name, 'FAIL', 'no error'))
    except Exception as e:  # noqa
        got = (getattr(e, 'http_status', None), getattr(e, 'error_code', None))
        ok = got == (http_status, error_code)
        results.append((name, 'ok' if ok else 'FAIL', '' if ok else f'{type(e).__name__}: {e}'))

async def main():
    sc = postmark.ServerClient(os.environ['MR_SERVER'], base_url=URL)
    ac = postmark.AccountClient(os.environ['MR_ACCOUNT'], base_url=URL)
    o = sc.outbound
    one = await call('outbound.send', o.send({'From': 'sender@example.com', 'To': 'reader@dest.example', 'Subject': 'Py', 'TextBody': 'x', 'HtmlBody': '<p>x</p>', 'TrackOpens': True}))
    await call('outbound.send_batch', o.send_batch([{'From': 'sender@example.com', 'To': 'a@dest.example', 'Subject': 'A', 'TextBody': 'a'}]))
    await call('outbound.send_batch(refused-item)', o.send_batch([{'From': 'nobody@unknown.example', 'To': 'a@dest.example', 'Subject': 'A', 'TextBody': 'a'}]))
    bulk = await call('outbound.send_bulk', o.send_bulk({'From': 'sender@example.com', 'Subject': 'Hi {{n}}', 'TextBody': 'x', 'MessageStream': 'broadcast', 'Messages': [{'To': 'b1@dest.example', 'TemplateModel': {'n': 1}}]}))
    if bulk: await call('outbound.get_bulk_status', o.get_bulk_status(bulk.id))
    t = await call('templates.create', sc.templates.create({'Name': 'Py', 'Alias': 'py', 'Subject': 'Hi {{n}}', 'HtmlBody': '<p>{{n}}</p>', 'TextBody': '{{n}}'}))
    await call('templates.create.layout', sc.templates.create({'Name': 'Lay', 'TemplateType': 'Layout', 'HtmlBody': '<div>{{{@content}}}</div>'}))
    await call('templates.list', sc.templates.list())
    await call('templates.get', sc.templates.get('py'))
    await call('templates.edit', sc.templates.edit('py', {'Subject': 'Hello {{n}}'}))
    await call('templates.validate', sc.templates.validate({'Subject': '{{n}}', 'HtmlBody': '{{#each items}}{{t}}{{/each}}', 'TextBody': 'x', 'TestRenderModel': {'n': 'a'}}))
    await call('templates.validate.bad', sc.templates.validate({'Subject': '{{#if}}', 'HtmlBody': '{{#each}}', 'TextBody': 'x'}))
    await call('outbound.send_with_template', o.send_with_template({'From': 'sender@example.com', 'To': 'r@dest.example', 'TemplateAlias': 'py', 'TemplateModel': {'n': 1}}))
    await call('outbound.send_batch_with_template', o.send_batch_with_template([{'From': 'sender@example.com', 'To': 'r@dest.example', 'TemplateAlias': 'py', 'TemplateModel': {'n': 1}}]))
    await asyncio.sleep(2)
    await call('outbound.list', o.list())
    async def stream_all():
        return [m async for m in o.stream(max_messages=50)]
    await call('outbound.stream', stream_all())
    for k, mid in list(IDS.items()) + ([('py', one.message_id)] if one else []):
        await call(f'outbound.get[{k}]', o.get(mid))
    await call('outbound.get_dump', o.get_dump(IDS['tracked']))
    await call('outbound.list_opens', o.list_opens())
    await call('outbound.list_message_opens', o.list_message_opens(IDS['tracked']))
    await call('outbound.list_clicks', o.list_clicks())
    await call('outbound.list_message_clicks', o.list_message_clicks(IDS['tracked']))
    b = sc.bounces
    await call('bounces.get_delivery_stats', b.get_delivery_stats())
    page = await call('bounces.list', b.list())
    async def bstream():
        return [x async for x in b.stream(max_bounces=50)] if 'max_bounces' in b.stream.__code__.co_varnames else [x async for x in b.stream()]
    await call('bounces.stream', bstream())
    if page and page.items:
        for bb in page.items:
            await call(f'bounces.get[{bb.type}]', b.get(bb.id))
            await call('bounces.get_dump', b.get_dump(bb.id))
        await call('bounces.activate', b.activate(page.items[-1].id))
    st = sc.stats
    for name in ['overview', 'sent_counts', 'bounce_counts', 'spam_counts', 'tracked_counts', 'open_counts', 'platform_usage', 'email_client_usage', 'click_counts', 'browser_usage', 'browser_platform_usage', 'click_location', 'read_times']:
        await call(f'stats.{name}', getattr(st, name)())
    await call('server.get', sc.server.get())
    await call('server.edit', sc.server.edit(color=ServerColor('Red'), bounce_hook_url='https://hooks.example.com/b'))
    s = sc.stream
    await call('stream.create', s.create('py-news', 'News', MessageStreamType('Broadcasts'), description='d'))
    await call('stream.list', s.list(include_archived=True))
    await call('stream.get', s.get('py-news'))
    await call('stream.edit', s.edit('py-news', name='News 2'))
    await call('stream.archive', s.archive('py-news'))
    await call('stream.unarchive', s.unarchive('py-news'))
    su = sc.suppressions
    await call('suppressions.create', su.create('outbound', ['nope@dest.example', 'not-an-address']))
    await call('suppressions.dump', su.dump('outbound'))
    await call('suppressions.dump.broadcast', su.dump('broadcast'))
    await call('suppressions.delete', su.delete('outbound', ['nope@dest.example']))
    w = sc.webhooks
    h = await call('webhooks.create', w.create('https://hooks.example.com/all', message_stream='outbound', http_auth={'Username': 'u', 'Password': 'p'}, http_headers=[{'Name': 'X-A', 'Value': 'b'}], triggers={'Open': {'Enabled': True, 'PostFirstOpenOnly': True}, 'Delivery': {'Enabled': True}}))
    await call('webhooks.list', w.list())
    await call('webhooks.list.outbound', w.list('outbound'))
    if h:
        await call('webhooks.get', w.get(h.id))
        await call('webhooks.edit', w.edit(h.id, url='https://hooks.example.com/all2'))
        await call('webhooks.delete', w.delete(h.id))
    inb = sc.inbound
    il = await call('inbound.list', inb.list())
    if il:
        for m in il.items:
            await call('inbound.get', inb.get(m.message_id))
    r = await call('inbound_rules.create', sc.inbound_rules.create('other.example'))
    await call('inbound_rules.list', sc.inbound_rules.list())
    if r: await call('inbound_rules.delete', sc.inbound_rules.delete(r.id))
    if il and il.items:
        for m in il.items:
            if str(m.status.value if hasattr(m.status, 'value') else m.status).lower() == 'blocked':
                await call('inbound.bypass', inb.bypass(m.message_id))
            if str(m.status.value if hasattr(m.status, 'value') else m.status).lower() == 'failed':
                await call('inbound.retry', inb.retry(m.message_id))
    # account
    srv = await call('account.server.create', ac.server.create('Py server', color=ServerColor('Red')))
    await call('account.server.list', ac.server.list())
    if srv:
        await call('account.server.get', ac.server.get(srv.id))
        await call('account.server.edit', ac.server.edit(srv.id, name='Py 2'))
        await call('account.templates.push', ac.templates.push({'SourceServerID': os.environ['MR_SERVER_ID'], 'DestinationServerID': str(srv.id), 'PerformChanges': True}))
        await call('account.server.delete', ac.server.delete(srv.id))
    d = await call('domain.create', ac.domain.create('py-domain.example'))
    await call('domain.list', ac.domain.list())
    if d:
        await call('domain.get', ac.domain.get(d.id))
        await call('domain.edit', ac.domain.edit(d.id, return_path_domain='pm-bounces.py-domain.example'))
        await call('domain.verify_dkim', ac.domain.verify_dkim(d.id))
        await call('domain.verify_return_path', ac.domain.verify_return_path(d.id))
        await call('domain.verify_spf', ac.domain.verify_spf(d.id))
        await expect_error('domain.rotate_dkim(pending:422,505)', ac.domain.rotate_dkim(d.id), 422, 505)
        await call('domain.delete', ac.domain.delete(d.id))
    sg = await call('signature.create', ac.signature.create('someone@py-sig.example', 'Someone'))
    await call('signature.list', ac.signature.list())
    if sg:
        await call('signature.get', ac.signature.get(sg.id))
        await call('signature.edit', ac.signature.edit(sg.id, 'Someone Else'))
        await call('signature.resend_confirmation', ac.signature.resend_confirmation(sg.id))
        await call('signature.verify_spf', ac.signature.verify_spf(sg.id))
        await call('signature.request_new_dkim', ac.signature.request_new_dkim(sg.id))
        await call('signature.delete', ac.signature.delete(sg.id))
    dr = await call('data_removals.create', ac.data_removals.create('dpo@example.com', 'reader@dest.example'))
    if dr: await call('data_removals.get', ac.data_removals.get(dr.id))
    await sc.close(); await ac.close()
    for n, st_, msg in results:
        print(f'{st_:4} {n} {msg}')

asyncio.run(main())
