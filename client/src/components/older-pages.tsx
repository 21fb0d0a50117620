import type { ReactNode } from 'react';

/**
 * The foot of a list read page by page: a button for the next (older) page while there is
 * one, then a line saying the list is complete.
 */
export function OlderPages(props: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
  label: string;
  end: ReactNode;
}) {
  const { query } = props;
  return (
    <div className="pager">
      {query.hasNextPage ? (
        <button
          type="button"
          className="button"
          onClick={() => void query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          {query.isFetchingNextPage ? 'Loading…' : props.label}
        </button>
      ) : (
        <span className="muted small">{props.end}</span>
      )}
    </div>
  );
}
