experiment "hostile" {
  http_port  = 8080
  https_port = 8443
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
scenario "p" {
  kind     = "page"
  visitors = [1]
  duration = "1s"
}
# The HTTP/3 check once ran var.h3probe as root.
profile "caddy" {
  vars = { h3probe = "[\"/bin/sh\",\"-c\",\"touch @PWNED@\"]" } # <- refused
}
