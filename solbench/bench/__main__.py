"""`python3 -m solbench.bench BUNDLE ...`: the same as `solgen bench BUNDLE ...`."""

import sys

from solbench.bench import main

sys.exit(main())
