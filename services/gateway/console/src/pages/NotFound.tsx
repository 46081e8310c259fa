import { PageHeading } from '../components/PageHeading.js';

export function NotFound() {
  return (
    <>
      <PageHeading title="Not found">Page not found</PageHeading>
      <p>
        There is no console page here. <a href="/console/usage">Go to Usage and credits</a>.
      </p>
    </>
  );
}
