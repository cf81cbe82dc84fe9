package dev.vigil.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeapAfterGcTest {
  @Test
  void g1HeapIsTheUsedOfItsOneHeapLineWithoutMetaspace() {
    String jdk21 =
        """
        12345:
         garbage-first heap   total 262144K, used 20480K [0x00000000f0000000, 0x0000000100000000)
          region size 1024K, 3 young (3072K), 0 survivors (0K)
         Metaspace       used 51200K, committed 51712K, reserved 1114112K
          class space    used 6144K, committed 6400K, reserved 1048576K
        """;
    String jdk25 =
        """
        12345:
        garbage-first heap   total reserved 8388608K, committed 266240K, used 30720K [0x0, 0x1)
         region size 4096K, 5 young (20480K), 0 survivors (0K)
        Metaspace       used 51200K, committed 51712K, reserved 1114112K
         class space    used 6144K, committed 6400K, reserved 1048576K
        """;
    assertThat(HeapAfterGc.usedKib(jdk21)).isEqualTo(20480);
    assertThat(HeapAfterGc.usedKib(jdk25)).isEqualTo(30720);
  }

  @Test
  void serialHeapSumsItsGenerationsButNotTheirSpaces() {
    String serial =
        """
        12345:
         def new generation   total 9792K, used 1024K [0x0, 0x1, 0x2)
          eden space 8704K,  11% used [0x0, 0x1, 0x2)
          from space 1088K,   0% used [0x0, 0x1, 0x2)
         tenured generation   total 21888K, used 15360K [0x0, 0x1, 0x2)
           the space 21888K,  70% used [0x0, 0x1, 0x2, 0x3)
         Metaspace       used 40960K, committed 41472K, reserved 1114112K
        """;
    assertThat(HeapAfterGc.usedKib(serial)).isEqualTo(16384);
  }

  @Test
  void outputWithoutAHeapLineIsAnError() {
    assertThatThrownBy(() -> HeapAfterGc.usedKib("12345:\nCould not find any processes\n"))
        .isInstanceOf(IllegalStateException.class);
  }
}
