// `npm run lint:links`: every relative link and anchor in the tracked markdown files resolves.
// Offline: links to other sites are not fetched. The repository is named so that the check needs
// no git remote (CI runs it on an extracted copy).
import remarkValidateLinks from 'remark-validate-links';

export default {
  plugins: [[remarkValidateLinks, { repository: 'zaakregister/zaakregister', root: '.' }]],
};
