import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { NotificationInput, Template } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, type Handler, pageOf, renderInApplication } from '../../test-utils';
import { player } from '../players/fixtures';
import { message, webApplication } from './fixtures';
import { NotificationTypeRoute } from './notification-routes';

const CREATE = 'POST /api/application/shop_one/notification';
let calls: Call[];

const template: Template = {
  id: 5,
  name: 'Weekly picks',
  type: 'web_push',
  content: { heading: 'This week', content: 'Our picks for you', buttons: [{ action_id: 'shop', button_text: 'Shop now' }], utm: { source: 'nudge' } },
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};

function start(handlers: Record<string, Handler> = {}, app: object = { ...webApplication, platforms: ['web', 'android', 'sms', 'facebook'] }) {
  calls = fakeApi(
    {
      'GET /api/application/shop_one/campaign': () => pageOf([]),
      'GET /api/application/shop_one/template': () => pageOf([template]),
      'GET /api/application/shop_one/template/5': () => template,
      'GET /api/application/shop_one/segment': () => pageOf([]),
      'POST /api/application/shop_one/segment/count': () => ({ count: 420, total: 1000 }),
      [CREATE]: (call) => message({ id: 77, ...(call.body as object), status: 'waiting' }),
      ...handlers,
    },
    app,
  );
}

function open(path: string) {
  return renderInApplication(<Route path="/notification/:notification_type" component={NotificationTypeRoute} />, path);
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });
/** The error Polaris shows under a field, found through the field's aria-describedby. */
function errorOf(label: string): string | null {
  const ids = field(label).getAttribute('aria-describedby')?.split(' ') ?? [];
  return ids.map((id) => document.getElementById(id)).find((element) => element?.id.endsWith('Error'))?.textContent ?? null;
}
const posted = () => calls.filter((call) => call.method === 'POST' && call.path === '/api/application/shop_one/notification');

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the create form', () => {
  it('shows the fields of the type: a web push has a heading, pictures and buttons', async () => {
    start();
    open('/application/shop_one/notification/web_push');
    expect(await screen.findByLabelText('Heading')).toBeTruthy();
    expect(screen.getByLabelText('Small picture')).toBeTruthy();
    expect(screen.getByLabelText('Large image')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add button' })).toBeTruthy();
  });

  it('shows an SMS only its text and link, with the parts it takes', async () => {
    start();
    open('/application/shop_one/notification/sms');
    await screen.findByLabelText('Message');
    expect(screen.queryByLabelText('Heading')).toBeNull();
    expect(screen.queryByLabelText('Large image')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add button' })).toBeNull();
    type('Message', 'Ưu đãi cuối tuần'.padEnd(80, '!'));
    expect(screen.getByText(/Sent as 2 SMS \(Unicode, up to 67 characters each\)/)).toBeTruthy();
  });

  it('refuses a web push without a heading, with the problem beside the field, and sends nothing', async () => {
    start();
    open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    type('Message', 'Everything 30% off');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send now' })[0]);
    });
    expect(errorOf('Heading')).toBe('This field is required');
    expect(errorOf('Message')).toBeNull();
    expect(screen.getByText('1 field needs attention')).toBeTruthy();
    expect(posted()).toHaveLength(0);
    // The problem clears as it is fixed.
    type('Heading', 'Tết sale');
    await waitFor(() => expect(errorOf('Heading')).toBeNull());
  });

  it("adds a personal value from the application's attributes where the cursor is, and refuses a tag typed wrong", async () => {
    const attribute = (id: number, name: string, type: string) => ({ id, name, type, description: null, source: 'sdk', players: 3, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' });
    start({ 'GET /api/application/shop_one/attribute': () => pageOf([attribute(1, 'first_name', 'text'), attribute(2, 'plan', 'text')]) });
    open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    type('Heading', 'Hi , your deal');
    const heading = field('Heading');
    fireEvent.focus(heading);
    heading.setSelectionRange(3, 3);
    fireEvent.click(await screen.findByRole('button', { name: 'Add a personal value' }));
    fireEvent.click(screen.getByRole('button', { name: /^first_name/ }));
    expect(field('Heading').value).toBe('Hi {{first_name}}, your deal');
    // The syntax is explained beside it, default included.
    expect(screen.getByText('{{first_name | there}} writes each player’s own first_name attribute, or “there” where they have none.')).toBeTruthy();
    type('Message', 'Your plan: {{plan | member}');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send now' })[0]);
    });
    expect(errorOf('Message')).toBe('Write a personal value as {{attribute_name}} or {{attribute_name | default}}, with both pairs of braces');
    expect(posted()).toHaveLength(0);
  });

  it('previews a personal message with its defaults, and as a player found by search reads it', async () => {
    const lan = { ...player, id: 42, email: 'lan@example.vn', external_user_id: null };
    const customer = (id: number) => ({ ...player, id, device_id: `v_${id}`, external_user_id: `cust-${id}` });
    // The list's search (match=start) finds ids that begin with what was typed; match=whole, only the one it is.
    const found: Record<string, { start: object[]; whole: object[] }> = {
      'lan@': { start: [lan], whole: [] },
      'cust-1': { start: [customer(10), customer(11), customer(1)], whole: [customer(1)] },
    };
    const attribute = (name: string, value: string | number, text: string) => ({ name, type: typeof value === 'number' ? 'number' : 'text', value, text, updated_at: '2025-03-01T08:00:00.000Z' });
    start({
      'GET /api/application/shop_one/player': (call) => {
        const answers = found[call.query.get('q') ?? ''];
        return { ...pageOf(answers ? answers[call.query.get('match') === 'whole' ? 'whole' : 'start'] : []), total_capped: false };
      },
      'GET /api/application/shop_one/player/42': () => ({ player: lan, attributes: [attribute('first_name', 'Lan', 'Lan'), attribute('spent', 12.5, '12.50')], events: { items: [], more: false } }),
    });
    open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    type('Heading', 'Tết sale');
    expect(screen.queryByLabelText('Preview for')).toBeNull();
    const preview = () => screen.getByRole('img', { name: 'The message as it appears on Desktop' });

    type('Heading', 'Hi {{first_name | friend}}');
    type('Message', 'You spent {{spent}} this year');
    expect(within(preview()).getByText('Hi friend')).toBeTruthy();
    expect(within(preview()).getByText('You spent this year')).toBeTruthy();
    expect(screen.getByText('As a player without these attributes would read it: each personal value shows its default.')).toBeTruthy();

    // The player list's own search finds her; picked, the preview is her message, her stored text as it is.
    const previewFor = () => screen.getByRole('combobox', { name: 'Preview for' });
    fireEvent.focus(previewFor());
    fill(previewFor(), 'lan@');
    fireEvent.click(await screen.findByRole('option', { name: 'lan@example.vn' }, { timeout: 2000 }));
    expect(calls.filter((call) => call.path === '/api/application/shop_one/player').map((call) => [call.query.get('q'), call.query.get('match')])).toEqual([
      ['lan@', 'whole'],
      ['lan@', null],
    ]);
    await waitFor(() => expect(within(preview()).getByText('Hi Lan')).toBeTruthy());
    expect(within(preview()).getByText('You spent 12.50 this year')).toBeTruthy();
    expect(screen.getByText('As lan@example.vn will read it, with their own attributes.')).toBeTruthy();
    // What is sent is the message as written, tags and all.
    expect(field('Heading').value).toBe('Hi {{first_name | friend}}');

    // A user id typed whole comes first, before those it begins.
    fireEvent.focus(previewFor());
    fill(previewFor(), 'cust-1');
    await screen.findByRole('option', { name: 'cust-11' }, { timeout: 2000 });
    expect(within(screen.getByRole('listbox')).getAllByRole('option').map((option) => option.textContent)).toEqual(['cust-1', 'cust-10', 'cust-11']);

    fill(previewFor(), 'nobody');
    expect(await screen.findByText('No player’s user ID, email or phone begins with “nobody”, and no device ID is that.', undefined, { timeout: 2000 })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Clear/ }));
    await waitFor(() => expect(within(preview()).getByText('Hi friend')).toBeTruthy());
  });

  it('says additional data is not valid JSON while it is typed, and refuses to send it', async () => {
    start();
    open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    type('Heading', 'Tết sale');
    type('Message', 'Everything 30% off');
    fireEvent.click(screen.getByRole('button', { name: 'UTM parameters and additional data' }));
    type('Additional data (JSON)', '{"coupon": ');
    expect(errorOf('Additional data (JSON)')).toBe('Please enter valid JSON');
    type('Additional data B (JSON)', '[1, 2]');
    expect(errorOf('Additional data B (JSON)')).toBe('Please enter valid JSON');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send now' })[0]);
    });
    expect(posted()).toHaveLength(0);
    type('Additional data (JSON)', '{"coupon": "TET"}');
    type('Additional data B (JSON)', '');
    expect(errorOf('Additional data (JSON)')).toBeNull();
  });

  it("warns with the plan's words when there are more buttons than the plan allows, and stops at three", async () => {
    start();
    open('/application/shop_one/notification/mobile_push');
    const add = await screen.findByRole('button', { name: 'Add button' });
    fireEvent.click(add);
    fireEvent.click(add);
    expect(screen.queryByText('Your account only support maximum 2 buttons')).toBeNull();
    fireEvent.click(add);
    expect(screen.getByText('Your account only support maximum 2 buttons')).toBeTruthy();
    expect(screen.getByText('3 of 2 buttons your plan allows')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add button' }).getAttribute('aria-disabled')).toBe('true');
  });

  it("takes the cap from the application's plan: one that allows three buttons doesn't warn at three", async () => {
    start({}, { ...webApplication, platforms: ['web', 'android', 'sms', 'facebook'], plan: 'pay_as_you_go' });
    open('/application/shop_one/notification/mobile_push');
    const add = await screen.findByRole('button', { name: 'Add button' });
    fireEvent.click(add);
    fireEvent.click(add);
    fireEvent.click(add);
    expect(screen.getByText('3 of 3 buttons your plan allows')).toBeTruthy();
    expect(screen.queryByText(/Your account only support maximum/)).toBeNull();
    // Three is still the most a message holds.
    expect(screen.getByRole('button', { name: 'Add button' }).getAttribute('aria-disabled')).toBe('true');
  });

  it('sends the message the form describes, says so, and opens its results', async () => {
    start();
    const view = open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    type('Heading', 'Tết sale');
    type('Message', 'Everything 30% off');
    type('Link', 'https://shop.example.vn/sale');
    fireEvent.click(screen.getByLabelText('Promotional message'));
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send now' })[0]);
    });
    await waitFor(() => expect(posted()).toHaveLength(1));
    const body = posted()[0].body as NotificationInput;
    expect(body).toMatchObject({
      type: 'web_push',
      draft: false,
      promotional: true,
      schedule: { mode: 'now' },
      ttl_seconds: 259_200,
      content: { heading: 'Tết sale', content: 'Everything 30% off', target_url: 'https://shop.example.vn/sale' },
      audience: { segment_id: null, filters: null, tags: [] },
    });
    expect(await screen.findByText('Send message successfully')).toBeTruthy();
    expect(view.location()).toBe('/application/shop_one/notification/77/detail');
  });

  it('shows "Send message failed" with the server\'s reason, and the field it names', async () => {
    start({
      [CREATE]: () =>
        answer(
          { success: false, error: 'INVALID_PARAM', message: 'Please enter a valid URL (http, https or ftp)', fields: [{ path: 'content.image_url', message: 'validation.url' }] },
          400,
        ),
    });
    open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    type('Heading', 'Tết sale');
    type('Message', 'Everything 30% off');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send now' })[0]);
    });
    expect(await screen.findByText('Send message failed: Please enter a valid URL (http, https or ftp)')).toBeTruthy();
    expect(errorOf('Large image')).toBe('Please enter a valid URL (http, https or ftp)');
  });

  it('fills the content from a template and previews it', async () => {
    start();
    open('/application/shop_one/notification/web_push?template_id=5');
    await waitFor(() => expect(field('Heading').value).toBe('This week'));
    expect(field('Message').value).toBe('Our picks for you');
    const preview = screen.getByRole('img', { name: 'The message as it appears on Desktop' });
    expect(within(preview).getByText('This week')).toBeTruthy();
    expect(within(preview).getByText('Shop now')).toBeTruthy();
    // A web push shows on desktop browsers and on Android.
    expect(screen.queryByRole('button', { name: 'iOS' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Android' }));
    expect(within(screen.getByRole('img', { name: 'The message as it appears on Android' })).getByText('This week')).toBeTruthy();
  });

  it('asks before leaving a message with changes not saved, and not one only filled from its template', async () => {
    start();
    let view = open('/application/shop_one/notification/web_push?template_id=5');
    await waitFor(() => expect(field('Heading').value).toBe('This week'));
    fireEvent.click(screen.getByRole('link', { name: 'Notifications' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/notification/basic'));
    cleanup();

    view = open('/application/shop_one/notification/web_push');
    type('Heading', 'Flash sale');
    fireEvent.click(screen.getByRole('link', { name: 'Notifications' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave page with unsaved changes?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(view.location()).toBe('/application/shop_one/notification/web_push');
    expect(field('Heading').value).toBe('Flash sale');
  });

  it('says when the type has no platform set up and keeps Send disabled', async () => {
    start({}, { ...webApplication, platforms: [] });
    open('/application/shop_one/notification/facebook');
    expect(await screen.findByText('Facebook message is not set up for this application')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Configure in Settings' }).getAttribute('href')).toBe('/application/shop_one/platform');
    expect(screen.getAllByRole('button', { name: 'Send now' })[0].getAttribute('aria-disabled')).toBe('true');
  });

  it('opens a saved draft as it was, saves it with PUT, and sends it from there', async () => {
    const draft = message({ id: 40, status: 'new', send_at: null, started_at: null, finished_at: null, schedule: { mode: 'at', at: '2030-01-02T03:00:00.000Z' }, tags: ['tet'] });
    start({
      'GET /api/application/shop_one/notification/40': () => draft,
      'PUT /api/application/shop_one/notification/40': (call) => ({ ...draft, ...(call.body as object), status: (call.body as { draft: boolean }).draft ? 'new' : 'waiting' }),
    });
    const view = open('/application/shop_one/notification/web_push?id=40');
    await waitFor(() => expect(field('Heading').value).toBe('Tết sale'));
    expect((screen.getByLabelText('At a time') as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText('tet')).toBeTruthy();
    type('Heading', 'Tết sale, last day');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Save draft' })[0]);
    });
    await waitFor(() => expect(calls.filter((call) => call.method === 'PUT')).toHaveLength(1));
    expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({ draft: true, content: { heading: 'Tết sale, last day' }, schedule: { mode: 'at', at: '2030-01-02T03:00:00.000Z' }, tags: ['tet'] });
    expect(posted()).toHaveLength(0);
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Schedule' })[0]);
    });
    await waitFor(() => expect(calls.filter((call) => call.method === 'PUT')).toHaveLength(2));
    expect(calls.filter((call) => call.method === 'PUT')[1].body).toMatchObject({ draft: false });
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/notification/40/detail'));
  });

  it("says a local time reaches players of unknown timezone in the application's timezone", async () => {
    start({}, { ...webApplication, utc_offset: -300 });
    open('/application/shop_one/notification/web_push');
    fireEvent.click(await screen.findByLabelText('At the same local time for each player'));
    expect(await screen.findByText("In each player's timezone; players whose timezone is unknown get it at this time in the application's timezone, UTC-05:00.")).toBeTruthy();
  });

  it("names the saved message's segment even when the segment list doesn't include it", async () => {
    const draft = message({ id: 41, status: 'new', send_at: null, audience: { segment_id: 312, filters: null, tags: [] }, audience_segment: { id: 312, name: 'Lapsed VIP buyers' } });
    start({ 'GET /api/application/shop_one/notification/41': () => draft });
    open('/application/shop_one/notification/web_push?id=41');
    await waitFor(() => expect(field('Heading').value).toBe('Tết sale'));
    const select = screen.getByLabelText('Segment') as HTMLSelectElement;
    expect(select.value).toBe('312');
    expect(select.selectedOptions[0].textContent).toBe('Lapsed VIP buyers');
  });

  it('says when the segment list holds only the newest of more segments than a picker loads', async () => {
    const segment = (id: number) => ({
      ...{ rule: { any: [{ all: [{ kind: 'tag', op: 'has', tag: 'vip' }] }] }, size: null, measured_at: null },
      ...{ id, name: `Segment ${id}`, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' },
    });
    start({
      'GET /api/application/shop_one/segment': (call) => {
        const pageNumber = Number(call.query.get('page'));
        const limit = Number(call.query.get('limit'));
        const ids = Array.from({ length: limit }, (_, index) => 1_234 - ((pageNumber - 1) * limit + index)).filter((id) => id > 0);
        return { items: ids.map(segment), total: 1_234, page: pageNumber, limit };
      },
    });
    open('/application/shop_one/notification/web_push');
    expect(await screen.findByText('The list holds the newest 1,000 of 1,234 segments; to send to an older one, open it in Segmentation and choose Send a message.')).toBeTruthy();
    const select = screen.getByLabelText('Segment') as HTMLSelectElement;
    // Everyone, then the 1,000 loaded.
    expect(select.options).toHaveLength(1_001);
  });

  it('says nothing of the kind when every segment is in the list', async () => {
    start({ 'GET /api/application/shop_one/segment': () => pageOf([]) });
    open('/application/shop_one/notification/web_push');
    await screen.findByLabelText('Heading');
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByText(/The list holds the newest/)).toBeNull();
  });

  it("starts a new message to the segment it was opened for (a segment page's Send a message), named even when the list doesn't include it", async () => {
    start({ 'GET /api/application/shop_one/segment/312': () => ({ id: 312, name: 'Lapsed VIP buyers', rule: { any: [{ all: [{ kind: 'tag', op: 'has', tag: 'vip' }] }] }, size: 40, measured_at: null, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z', sizes: [] }) });
    open('/application/shop_one/notification/web_push?segment_id=312');
    const select = (await screen.findByLabelText('Segment')) as HTMLSelectElement;
    expect(select.value).toBe('312');
    expect(select.selectedOptions[0].textContent).toBe('Lapsed VIP buyers');
    type('Heading', 'Tết sale');
    type('Message', 'Everything 30% off');
    type('Link', 'https://shop.example.vn/sale');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send now' })[0]);
    });
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect((posted()[0].body as NotificationInput).audience.segment_id).toBe(312);
  });

  it("sends a role without segments' area to everyone, whatever segment the link names", async () => {
    useAppStore.setState({ roles: ['user'] });
    start();
    open('/application/shop_one/notification/web_push?segment_id=312');
    const select = (await screen.findByLabelText('Segment')) as HTMLSelectElement;
    expect(select.value).toBe('');
    expect(calls.map((call) => call.path)).not.toContain('/api/application/shop_one/segment/312');
  });

  it("lets a role without segments' area keep or drop the segment of a message it edits, not choose another", async () => {
    useAppStore.setState({ roles: ['user'] });
    const draft = message({ id: 42, status: 'new', send_at: null, audience: { segment_id: 312, filters: null, tags: [] }, audience_segment: { id: 312, name: 'Lapsed VIP buyers' } });
    start({ 'GET /api/application/shop_one/notification/42': () => draft });
    open('/application/shop_one/notification/web_push?id=42');
    await waitFor(() => expect(field('Heading').value).toBe('Tết sale'));
    const select = screen.getByLabelText('Segment') as HTMLSelectElement;
    expect(select.disabled).toBe(false);
    expect([...select.options].map((option) => option.textContent)).toEqual(['All subscribers of Web push', 'Lapsed VIP buyers']);
    expect(select.value).toBe('312');
    // What the form says matches where the message goes: the kept segment, then everyone.
    expect(screen.getByText('This message goes to the players of the segment “Lapsed VIP buyers” who match the tags and conditions.')).toBeTruthy();
    fireEvent.change(select, { target: { value: '' } });
    // Dropped, it cannot be chosen again: the list has no segments for this role.
    expect((screen.getByLabelText('Segment') as HTMLSelectElement).disabled).toBe(true);
    expect(screen.getByText('Without segments, the message goes to every subscriber of Web push who matches the tags and conditions.')).toBeTruthy();

  });

  it("copies a message with a segment to everyone for a role without segments' area", async () => {
    useAppStore.setState({ roles: ['user'] });
    const sent = message({ id: 42, audience: { segment_id: 312, filters: null, tags: [] }, audience_segment: { id: 312, name: 'Lapsed VIP buyers' } });
    start({ 'GET /api/application/shop_one/notification/42': () => sent });
    open('/application/shop_one/notification/web_push?copy=42');
    await waitFor(() => expect(field('Heading').value).toBe('Tết sale'));
    const select = screen.getByLabelText('Segment') as HTMLSelectElement;
    expect(select.value).toBe('');
    expect(select.disabled).toBe(true);
  });

  it('names a segment deleted before its message was started as deleted, not as a bare number', async () => {
    start();
    open('/application/shop_one/notification/web_push?segment_id=313');
    const select = (await screen.findByLabelText('Segment')) as HTMLSelectElement;
    expect(select.selectedOptions[0].textContent).toBe('Deleted segment (#313)');
  });

  it('says a saved segment was deleted, rather than showing a bare number', async () => {
    const draft = message({ id: 42, status: 'new', send_at: null, audience: { segment_id: 313, filters: null, tags: [] }, audience_segment: null });
    start({ 'GET /api/application/shop_one/notification/42': () => draft });
    open('/application/shop_one/notification/web_push?id=42');
    await waitFor(() => expect(field('Heading').value).toBe('Tết sale'));
    expect((screen.getByLabelText('Segment') as HTMLSelectElement).selectedOptions[0].textContent).toBe('Deleted segment (#313)');
  });

  it('refuses to change a message that was already sent, and offers a copy', async () => {
    start({ 'GET /api/application/shop_one/notification/12': () => message() });
    const view = open('/application/shop_one/notification/web_push?id=12');
    expect(await screen.findByText('This message can no longer be changed')).toBeTruthy();
    expect(field('Heading').disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Duplicate' }));
    expect(view.location()).toBe('/application/shop_one/notification/web_push?copy=12');
    await waitFor(() => expect(field('Heading').value).toBe('Tết sale'));
    expect(field('Heading').disabled).toBe(false);
  });

  it('names its visited-view tab as a new notification, not as the list it shares a route with', async () => {
    start();
    useAppStore.setState({ visitedViews: [{ path: '/application/shop_one/notification/web_push', title: 'menu.notifications', applicationId: 'shop_one' }] });
    open('/application/shop_one/notification/web_push');
    await waitFor(() => expect(useAppStore.getState().visitedViews[0].title).toBe('menu.notificationCreate'));
  });

  it('estimates the recipients of the audience as it is chosen', async () => {
    start();
    open('/application/shop_one/notification/web_push');
    expect(await screen.findByText('420 of 1,000 players', {}, { timeout: 2000 })).toBeTruthy();
    const count = calls.find((call) => call.path.endsWith('/segment/count'));
    expect(count?.body).toEqual({ rule: { any: [{ all: [{ kind: 'channel', channel: 'web_push', subscribed: true }] }] } });
  });

  it('asks for a condition when the extra conditions have none, then estimates with the country chosen by name', async () => {
    start();
    open('/application/shop_one/notification/web_push');
    await screen.findByText('420 of 1,000 players', {}, { timeout: 2000 });
    fireEvent.click(screen.getByLabelText('Add conditions'));
    // A new condition left empty is to complete.
    expect(await screen.findByText('Complete the conditions to see how many players match.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Remove condition 1.1' }));
    // None left: nothing to complete, one to add or the box to untick.
    expect(await screen.findByText('No condition added yet. Add one to see the estimate, or untick “Add conditions”.')).toBeTruthy();
    expect(screen.queryByText('Complete the conditions to see how many players match.')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    const country = screen.getByLabelText('Condition 1.1: value');
    fireEvent.focus(country);
    fireEvent.change(country, { target: { value: 'viet' } });
    fireEvent.click(await screen.findByRole('option', { name: 'Vietnam (VN)' }));
    await waitFor(() =>
      expect(calls.filter((call) => call.path.endsWith('/segment/count')).at(-1)?.body).toEqual({
        rule: { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }, { kind: 'channel', channel: 'web_push', subscribed: true }] }] },
      }),
    );
    expect(screen.queryByText(/No condition added yet/)).toBeNull();
  });
});
