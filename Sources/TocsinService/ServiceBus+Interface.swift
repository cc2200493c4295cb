/// The interface the service exports.
extension ServiceBus {
    /// The interface, as share/dbus-1/interfaces/dev.tocsin.Timers1.xml has it.
    static let introspection = """
        <node>
          <interface name="dev.tocsin.Timers1">
            <method name="Add">
              <arg name="label" type="s" direction="in"/>
              <arg name="seconds" type="d" direction="in"/>
              <arg name="options" type="a{sv}" direction="in"/>
              <arg name="id" type="t" direction="out"/>
            </method>
            <method name="Pause"><arg name="id" type="t" direction="in"/></method>
            <method name="Resume"><arg name="id" type="t" direction="in"/></method>
            <method name="Cancel"><arg name="id" type="t" direction="in"/></method>
            <method name="Restart"><arg name="id" type="t" direction="in"/></method>
            <method name="Remove"><arg name="id" type="t" direction="in"/></method>
            <method name="Adjust">
              <arg name="id" type="t" direction="in"/>
              <arg name="delta" type="d" direction="in"/>
            </method>
            <method name="Snooze">
              <arg name="id" type="t" direction="in"/>
              <arg name="seconds" type="d" direction="in"/>
            </method>
            <method name="Skip">
              <arg name="id" type="t" direction="in"/>
              <arg name="count" type="u" direction="in"/>
            </method>
            <method name="SkipUntil">
              <arg name="id" type="t" direction="in"/>
              <arg name="until" type="d" direction="in"/>
            </method>
            <method name="Lap">
              <arg name="id" type="t" direction="in"/>
              <arg name="lap" type="d" direction="out"/>
            </method>
            <method name="List">
              <arg name="timers" type="aa{sv}" direction="out"/>
            </method>
            <method name="ListColumns">
              <arg name="names" type="as" direction="in"/>
              <arg name="columns" type="a{sv}" direction="out"/>
            </method>
            <method name="Watch"/>
            <method name="Subscribe"/>
            <signal name="Changed">
              <arg name="id" type="t"/>
              <arg name="properties" type="a{sv}"/>
            </signal>
            <signal name="Finished">
              <arg name="id" type="t"/>
              <arg name="label" type="s"/>
              <arg name="lateness" type="d"/>
            </signal>
            <signal name="FinishAnnounced">
              <arg name="id" type="t"/>
              <arg name="label" type="s"/>
              <arg name="lateness" type="d"/>
              <arg name="finish" type="t"/>
              <arg name="again" type="b"/>
            </signal>
            <signal name="Removed">
              <arg name="id" type="t"/>
            </signal>
            <property name="CanWake" type="b" access="read"/>
          </interface>
        </node>
        """
}
