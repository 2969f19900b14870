import sys

from svc_controller.cli import main

sys.exit(main())
