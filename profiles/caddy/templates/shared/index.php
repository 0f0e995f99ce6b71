<?php
// Placeholder written by a wptest server profile only when the docroot has no
// index.php yet. The fixture (wptest seed) replaces it with WordPress.
header('Content-Type: text/plain');
echo "wptest: this docroot has no site yet; run `wptest seed` to install the fixture.\n";
