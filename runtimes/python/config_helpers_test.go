package python_test

import "github.com/aios-host/aios-host/config"

func parseConfig(y string) (*config.Config, error) { return config.Parse([]byte(y), "test.yaml") }
