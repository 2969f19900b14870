"""svc-controller: the controller BFF (spec 4.13) beside a fleet of displays, on the display's host kit."""
