import { teardown } from './user-folder';

export default teardown;
