import { Link } from 'react-router';
import { PageHeader } from '../components/shell';

export function Component() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is nothing at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </>
  );
}
