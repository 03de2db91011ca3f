// Package all registers every recording algorithm of weft (record/light,
// record/stride, record/aggreplay, record/leap): import it for its effect,
// as the testing package does, to record and replay with any of them by
// name (record.New).
package all

import (
	_ "github.com/weftdev/weft/record/aggreplay" // registers "aggreplay"
	_ "github.com/weftdev/weft/record/leap"      // registers "leap"
	_ "github.com/weftdev/weft/record/light"     // registers "light"
	_ "github.com/weftdev/weft/record/stride"    // registers "stride"
)
