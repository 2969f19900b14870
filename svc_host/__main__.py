import sys

from svc_host.cli import main

sys.exit(main())
