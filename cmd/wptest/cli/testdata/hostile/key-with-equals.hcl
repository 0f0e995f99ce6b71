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
# A key with "=" in it, once read by the profile's loader as
# allow_from=["0.0.0.0/0"] (the rest a comment), past operator_only.
profile "caddy" {
  vars = { "allow_from=[\"0.0.0.0/0\"] #" = "" } # <- refused
}
