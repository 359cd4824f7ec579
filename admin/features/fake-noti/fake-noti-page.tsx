import { WidgetScreen } from '../banners/widget-screen';
import { FakeNotiSettingsSection, fakeNotiProblems } from './fake-noti-settings';

/** /fake_noti: the fake-buyer notice widgets, listed, and each one's editor. */
export function FakeNotiPage() {
  return (
    <WidgetScreen
      type="fake_noti"
      path="/fake_noti"
      titleKey="menu.fakeNoti"
      subtitleKey="fakeNoti.list.subtitle"
      createKey="fakeNoti.list.create"
      emptyTitleKey="fakeNoti.list.emptyTitle"
      emptyBodyKey="fakeNoti.list.emptyBody"
      newTitleKey="fakeNoti.list.newTitle"
      renderSettings={(props) => <FakeNotiSettingsSection {...props} />}
      check={fakeNotiProblems}
    />
  );
}
