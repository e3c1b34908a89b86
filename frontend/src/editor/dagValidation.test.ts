// Generated once from the backend (backend/e3/schemas/dag.py validate_application) by running it over
// these documents; the expected messages below are the API's, copied verbatim. The local validator
// must give the same field, message and code, in the same order.
import { describe, expect, it } from "vitest";

import { findCycle, locateErrors, ON_CYCLE, summaryMessage, validateDag, type SpecDocument } from "./dagValidation";
import { readConfigSchema } from "./serviceConfig";

// GET /api/v1/catalog/services: name -> platforms
const SERVICES: Record<string, string[]> = {
  "ipsec": [
    "host",
    "smartnic"
  ],
  "bm25": [
    "host",
    "smartnic"
  ],
  "nids": [
    "host",
    "smartnic"
  ],
  "recommend": [
    "host",
    "smartnic"
  ],
  "natv4": [
    "host",
    "smartnic"
  ],
  "count": [
    "host",
    "smartnic"
  ],
  "ema": [
    "host",
    "smartnic"
  ],
  "kvs": [
    "host",
    "smartnic"
  ],
  "flow_monitor": [
    "host",
    "smartnic"
  ],
  "ddos": [
    "host",
    "smartnic"
  ],
  "knn": [
    "host",
    "smartnic"
  ],
  "spike": [
    "host",
    "smartnic"
  ],
  "bayes": [
    "host",
    "smartnic"
  ],
  "api_gateway": [
    "host",
    "smartnic"
  ],
  "top_ranker": [
    "host",
    "smartnic"
  ],
  "sql": [
    "host"
  ]
};

interface Case {
  name: string;
  doc: unknown;
  message: string;
  errors: { field: string; message: string; code: string; cycle?: string[] }[];
}

const CASES: Case[] = [
  {
    "name": "valid chain",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "api",
            "service": "api_gateway",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "kvs",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "api",
            "to": "kvs"
          }
        ]
      }
    },
    "message": "valid",
    "errors": []
  },
  {
    "name": "cycle of two",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "a",
            "to": "b"
          },
          {
            "from": "b",
            "to": "a"
          }
        ]
      }
    },
    "message": "spec.edges: cycle: a -> b -> a; an application must be acyclic",
    "errors": [
      {
        "field": "spec.edges",
        "message": "cycle: a -> b -> a; an application must be acyclic",
        "code": "cycle",
        "cycle": [
          "a",
          "b"
        ]
      }
    ]
  },
  {
    "name": "cycle of three after a tail",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "x",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "c",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "x",
            "to": "a"
          },
          {
            "from": "a",
            "to": "b"
          },
          {
            "from": "b",
            "to": "c"
          },
          {
            "from": "c",
            "to": "a"
          }
        ]
      }
    },
    "message": "spec.edges: cycle: a -> b -> c -> a; an application must be acyclic",
    "errors": [
      {
        "field": "spec.edges",
        "message": "cycle: a -> b -> c -> a; an application must be acyclic",
        "code": "cycle",
        "cycle": [
          "a",
          "b",
          "c"
        ]
      }
    ]
  },
  {
    "name": "self-loop",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "a",
            "to": "a"
          }
        ]
      }
    },
    "message": "spec.edges[0]: self-loop: a -> a; a node cannot send to itself in a DAG",
    "errors": [
      {
        "field": "spec.edges[0]",
        "message": "self-loop: a -> a; a node cannot send to itself in a DAG",
        "code": "self_loop"
      }
    ]
  },
  {
    "name": "dangling edge",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "a",
            "to": "cache"
          },
          {
            "from": "ghost",
            "to": "a"
          }
        ]
      }
    },
    "message": "spec.edges[0].to: unknown node 'cache': no node in spec.nodes has this id (and 1 more)",
    "errors": [
      {
        "field": "spec.edges[0].to",
        "message": "unknown node 'cache': no node in spec.nodes has this id",
        "code": "unknown_node"
      },
      {
        "field": "spec.edges[1].from",
        "message": "unknown node 'ghost': no node in spec.nodes has this id",
        "code": "unknown_node"
      }
    ]
  },
  {
    "name": "duplicate edge",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "a",
            "to": "b"
          },
          {
            "from": "a",
            "to": "b"
          }
        ]
      }
    },
    "message": "spec.edges[1]: duplicate edge a -> b (same as spec.edges[0])",
    "errors": [
      {
        "field": "spec.edges[1]",
        "message": "duplicate edge a -> b (same as spec.edges[0])",
        "code": "duplicate"
      }
    ]
  },
  {
    "name": "duplicate ids",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "a",
            "service": "ema",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[2].id: duplicate node id 'a' (first used by spec.nodes[0])",
    "errors": [
      {
        "field": "spec.nodes[2].id",
        "message": "duplicate node id 'a' (first used by spec.nodes[0])",
        "code": "duplicate"
      }
    ]
  },
  {
    "name": "unknown service",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "db",
            "service": "postgres",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[0].service: unknown service 'postgres'; valid services: api_gateway, bayes, bm25, count, ddos, ema, flow_monitor, ipsec, knn, kvs, natv4, nids, recommend, spike, sql, top_ranker",
    "errors": [
      {
        "field": "spec.nodes[0].service",
        "message": "unknown service 'postgres'; valid services: api_gateway, bayes, bm25, count, ddos, ema, flow_monitor, ipsec, knn, kvs, natv4, nids, recommend, spike, sql, top_ranker",
        "code": "unknown_service"
      }
    ]
  },
  {
    "name": "shards out of range",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 0,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1001,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[0].shards: must be at least 1, got 0 (and 1 more)",
    "errors": [
      {
        "field": "spec.nodes[0].shards",
        "message": "must be at least 1, got 0",
        "code": "out_of_range"
      },
      {
        "field": "spec.nodes[1].shards",
        "message": "must be at most 1000, got 1001",
        "code": "out_of_range"
      }
    ]
  },
  {
    "name": "replicas out of range",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": -1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1,
            "replicas": 1001,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[0].replicas: must be at least 0, got -1 (and 1 more)",
    "errors": [
      {
        "field": "spec.nodes[0].replicas",
        "message": "must be at least 0, got -1",
        "code": "out_of_range"
      },
      {
        "field": "spec.nodes[1].replicas",
        "message": "must be at most 1000, got 1001",
        "code": "out_of_range"
      }
    ]
  },
  {
    "name": "request bytes out of range",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 0
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 65536
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[0].request_bytes: must be at least 1, got 0 (and 1 more)",
    "errors": [
      {
        "field": "spec.nodes[0].request_bytes",
        "message": "must be at least 1, got 0",
        "code": "out_of_range"
      },
      {
        "field": "spec.nodes[1].request_bytes",
        "message": "must be at most 65535, got 65536",
        "code": "out_of_range"
      }
    ]
  },
  {
    "name": "not integers",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": "3",
            "replicas": 1.5,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": true
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[0].shards: must be an integer, got '3' (a string) (and 2 more)",
    "errors": [
      {
        "field": "spec.nodes[0].shards",
        "message": "must be an integer, got '3' (a string)",
        "code": "wrong_type"
      },
      {
        "field": "spec.nodes[0].replicas",
        "message": "must be an integer, got 1.5 (not a whole number)",
        "code": "wrong_type"
      },
      {
        "field": "spec.nodes[0].request_bytes",
        "message": "must be an integer, got true (a boolean)",
        "code": "wrong_type"
      }
    ]
  },
  {
    "name": "bad node id",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "Api",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "9lives",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "Api",
            "to": "9lives"
          }
        ]
      }
    },
    "message": "spec.nodes[0].id: 'Api' is not valid: 1-63 characters: a lowercase letter, then lowercase letters, digits, '_' or '-' (pattern ^[a-z][a-z0-9_-]{0,62}$) (and 3 more)",
    "errors": [
      {
        "field": "spec.nodes[0].id",
        "message": "'Api' is not valid: 1-63 characters: a lowercase letter, then lowercase letters, digits, '_' or '-' (pattern ^[a-z][a-z0-9_-]{0,62}$)",
        "code": "pattern_mismatch"
      },
      {
        "field": "spec.nodes[1].id",
        "message": "'9lives' is not valid: 1-63 characters: a lowercase letter, then lowercase letters, digits, '_' or '-' (pattern ^[a-z][a-z0-9_-]{0,62}$)",
        "code": "pattern_mismatch"
      },
      {
        "field": "spec.edges[0].from",
        "message": "unknown node 'Api': no node in spec.nodes has this id",
        "code": "unknown_node"
      },
      {
        "field": "spec.edges[0].to",
        "message": "unknown node '9lives': no node in spec.nodes has this id",
        "code": "unknown_node"
      }
    ]
  },
  {
    "name": "bad name",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "My App",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "metadata.name: 'My App' is not valid: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit (pattern ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$)",
    "errors": [
      {
        "field": "metadata.name",
        "message": "'My App' is not valid: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit (pattern ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$)",
        "code": "pattern_mismatch"
      }
    ]
  },
  {
    "name": "empty name",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "metadata.name: '' is not valid: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit (pattern ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$)",
    "errors": [
      {
        "field": "metadata.name",
        "message": "'' is not valid: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit (pattern ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$)",
        "code": "pattern_mismatch"
      }
    ]
  },
  {
    "name": "sql on smartnic",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "db",
            "service": "sql",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "smartnic"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes[0].constraints.platform: sql is host-only in the paper: its state cannot migrate to the SmartNIC (E3's reliable collections hold only hashtables and arrays), so SQL instances are pinned to host processors; platform 'smartnic' is not possible, use any or host",
    "errors": [
      {
        "field": "spec.nodes[0].constraints.platform",
        "message": "sql is host-only in the paper: its state cannot migrate to the SmartNIC (E3's reliable collections hold only hashtables and arrays), so SQL instances are pinned to host processors; platform 'smartnic' is not possible, use any or host",
        "code": "platform_not_supported"
      }
    ]
  },
  {
    "name": "sql on host is fine",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "db",
            "service": "sql",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "host"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "valid",
    "errors": []
  },
  {
    "name": "empty DAG",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [],
        "edges": []
      }
    },
    "message": "spec.nodes: an application needs at least one node",
    "errors": [
      {
        "field": "spec.nodes",
        "message": "an application needs at least one node",
        "code": "too_short"
      }
    ]
  },
  {
    "name": "too many instances",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1000,
            "replicas": 1000,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": []
      }
    },
    "message": "spec.nodes: the application has 1001000 instances (shards x (1 + replicas), summed); the limit is 100000",
    "errors": [
      {
        "field": "spec.nodes",
        "message": "the application has 1001000 instances (shards x (1 + replicas), summed); the limit is 100000",
        "code": "too_many_instances"
      }
    ]
  },
  {
    "name": "edge to a node with a bad field is not dangling",
    "doc": {
      "apiVersion": "e3/v1",
      "kind": "Application",
      "metadata": {
        "name": "app",
        "description": "",
        "labels": {}
      },
      "spec": {
        "nodes": [
          {
            "id": "a",
            "service": "kvs",
            "shards": 1,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          },
          {
            "id": "b",
            "service": "kvs",
            "shards": 0,
            "replicas": 1,
            "constraints": {
              "platform": "any"
            },
            "request_bytes": 512
          }
        ],
        "edges": [
          {
            "from": "a",
            "to": "b"
          }
        ]
      }
    },
    "message": "spec.nodes[1].shards: must be at least 1, got 0",
    "errors": [
      {
        "field": "spec.nodes[1].shards",
        "message": "must be at least 1, got 0",
        "code": "out_of_range"
      }
    ]
  }
];

describe("validateDag gives the API's messages", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const errors = validateDag(c.doc as SpecDocument, SERVICES);
      expect(errors).toEqual(c.errors);
      expect(summaryMessage(errors)).toBe(c.message);
    });
  }
});

describe("findCycle", () => {
  it("returns null for a DAG", () => {
    expect(findCycle(["a", "b", "c"], [["a", "b"], ["b", "c"], ["a", "c"]])).toBeNull();
  });
  it("finds the loop reached first in spec order", () => {
    expect(findCycle(["x", "a", "b"], [["x", "a"], ["a", "b"], ["b", "a"]])).toEqual(["a", "b"]);
  });
});

describe("locateErrors", () => {
  it("maps node and edge paths to their index and a cycle to every node and edge on it", () => {
    const errors = validateDag(CASES.find((c) => c.name === "cycle of three after a tail")!.doc as SpecDocument, SERVICES);
    const located = locateErrors(errors, ["x", "a", "b", "c"], [
      { from: "x", to: "a" }, { from: "a", to: "b" }, { from: "b", to: "c" }, { from: "c", to: "a" },
    ]);
    expect([...located.nodes.keys()].sort()).toEqual([1, 2, 3]);
    expect([...located.edges.keys()].sort()).toEqual([1, 2, 3]);
    expect(located.general).toHaveLength(1);
  });
  it("labels a cycle once, on the canvas, and only marks its edges and nodes", () => {
    const errors = validateDag(CASES.find((c) => c.name === "cycle of three after a tail")!.doc as SpecDocument, SERVICES);
    const cycle = errors.find((e) => e.code === "cycle")!.cycle!;
    const edges = [{ from: "x", to: "a" }, { from: "a", to: "b" }, { from: "b", to: "c" }, { from: "c", to: "a" }];
    const located = locateErrors(errors, ["x", "a", "b", "c"], edges);
    expect(located.canvas).toEqual([`cycle: ${[...cycle, cycle[0]].join(" → ")}`]);
    expect([...located.edges.values()]).toEqual([[], [], []]);
    expect([...located.nodes.values()]).toEqual([[ON_CYCLE], [ON_CYCLE], [ON_CYCLE]]);
  });
  it("puts metadata errors on their field and field errors on their node", () => {
    const located = locateErrors(
      [
        { field: "metadata.name", message: "bad", code: "pattern_mismatch" },
        { field: "spec.nodes[1].shards", message: "must be at least 1, got 0", code: "out_of_range" },
        { field: "spec.edges[0].to", message: "unknown node", code: "unknown_node" },
        { field: "spec.nodes", message: "an application needs at least one node", code: "too_short" },
      ],
      ["a", "b"],
      [{ from: "a", to: "ghost" }],
    );
    expect(located.metadata.get("metadata.name")).toEqual(["bad"]);
    expect(located.nodes.get(1)).toEqual(["must be at least 1, got 0"]);
    expect(located.edges.get(0)).toEqual(["unknown node"]);
    expect(located.general.map((e) => e.code)).toEqual(["too_short"]);
  });
});

// The catalogue's configuration schemas (GET /api/v1/catalog/services, `config_schema`), from the backend's files.
const SCHEMA_FILES = import.meta.glob<unknown>("../../../backend/e3/catalog/config_schemas/*.json", { eager: true, import: "default" });
const SCHEMAS = Object.fromEntries(Object.entries(SCHEMA_FILES).map(([path, raw]) => [path.replace(/^.*\/|\.json$/g, ""), readConfigSchema(raw)]));

// Generated the same way as CASES (validate_application over each document), for nodes' `config`: the spec's
// own rules for it first (a mapping of at most 32 strings), then each service's schema.
const CONFIG_CASES: Case[] = [
  {"name": "config of the wrong shape", "doc": {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "cfg", "description": "", "labels": {}}, "spec": {"nodes": [{"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "a", "service": "kvs", "config": 5}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "b", "service": "kvs", "config": {"max_value": 5}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "c", "service": "kvs", "config": {"Bad": "a;b", "max_value": "a;b"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "d", "service": "kvs", "config": {"k0": "1", "k1": "1", "k2": "1", "k3": "1", "k4": "1", "k5": "1", "k6": "1", "k7": "1", "k8": "1", "k9": "1", "k10": "1", "k11": "1", "k12": "1", "k13": "1", "k14": "1", "k15": "1", "k16": "1", "k17": "1", "k18": "1", "k19": "1", "k20": "1", "k21": "1", "k22": "1", "k23": "1", "k24": "1", "k25": "1", "k26": "1", "k27": "1", "k28": "1", "k29": "1", "k30": "1", "k31": "1", "k32": "1"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "e", "service": "kvs", "config": null}, {"shards": 0, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "f", "service": "kvs", "config": {"max_value": "0"}}], "edges": []}}, "message": "spec.nodes[0].config: must be an object (mapping), got 5 (a number) (and 7 more)", "errors": [{"field": "spec.nodes[0].config", "message": "must be an object (mapping), got 5 (a number)", "code": "wrong_type"}, {"field": "spec.nodes[1].config.max_value", "message": "must be a string, got 5 (a number)", "code": "wrong_type"}, {"field": "spec.nodes[2].config.Bad", "message": "'Bad' is not valid: 1-32 lowercase letters, digits or '_', starting with a letter (pattern ^[a-z][a-z0-9_]{0,31}$)", "code": "pattern_mismatch"}, {"field": "spec.nodes[2].config.Bad", "message": "'a;b' is not valid: at most 1024 characters, none of them ';', '=' or a newline (pattern ^[^;=\\n]{0,1024}$)", "code": "pattern_mismatch"}, {"field": "spec.nodes[2].config.max_value", "message": "'a;b' is not valid: at most 1024 characters, none of them ';', '=' or a newline (pattern ^[^;=\\n]{0,1024}$)", "code": "pattern_mismatch"}, {"field": "spec.nodes[3].config", "message": "must have at most 32 items, got None", "code": "too_long"}, {"field": "spec.nodes[4].config", "message": "must be an object (mapping), got null", "code": "wrong_type"}, {"field": "spec.nodes[5].shards", "message": "must be at least 1, got 0", "code": "out_of_range"}]},
  {"name": "config values against the services' schemas", "doc": {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "cfg", "description": "", "labels": {}}, "spec": {"nodes": [{"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "gw", "service": "api_gateway", "config": {"rate": "-1", "burst": "abc", "keys": "a, b", "nope": "1"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "db", "service": "sql", "config": {"columns": "name:text,id:int"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "kv", "service": "kvs", "config": {"max_value": "0"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "fm", "service": "flow_monitor", "config": {"seed": "9223372036854775808", "depth": "010"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "rc", "service": "recommend", "config": {"k": "1"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "bayes", "service": "bayes", "config": {"train": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "nowhere"}, "request_bytes": 512, "id": "gw2", "service": "api_gateway", "config": {"rate": "inf"}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "host"}, "request_bytes": 512, "id": "gw3", "service": "api_gateway", "config": {"rate": "1e-400", "burst": "9007199254740991"}}], "edges": [{"from": "gw", "to": "db"}]}}, "message": "spec.nodes[6].constraints.platform: must be 'host', 'smartnic' or 'any', got 'nowhere' (a string) (and 11 more)", "errors": [{"field": "spec.nodes[6].constraints.platform", "message": "must be 'host', 'smartnic' or 'any', got 'nowhere' (a string)", "code": "invalid_choice"}, {"field": "spec.nodes[0].config.rate", "message": "must be greater than 0, got -1", "code": "out_of_range"}, {"field": "spec.nodes[0].config.burst", "message": "must be an integer in decimal digits without leading zeros, got 'abc'", "code": "wrong_type"}, {"field": "spec.nodes[0].config.keys", "message": "'a, b' is not valid: The API keys a request may present, separated by ',': 1 to 64 keys, none with a space or tab. Generated at save when left out (16 random bytes in hex).", "code": "pattern_mismatch"}, {"field": "spec.nodes[0].config.nope", "message": "unknown key 'nope' for api_gateway; its keys: burst, keys, rate", "code": "unknown_field"}, {"field": "spec.nodes[1].config.columns", "message": "'name:text,id:int' is not valid: The table's columns \"<name>:<type>\" separated by ',': 1 to 32, types int, real or text, names unique, of 1 to 31 letters, digits or '_' not starting with a digit; the first column is the primary key and is an int.", "code": "pattern_mismatch"}, {"field": "spec.nodes[2].config.max_value", "message": "must be at least 1, got 0", "code": "out_of_range"}, {"field": "spec.nodes[3].config.seed", "message": "must be at most 9223372036854775807, got 9223372036854775808", "code": "out_of_range"}, {"field": "spec.nodes[3].config.depth", "message": "must be an integer in decimal digits without leading zeros, got '010'", "code": "wrong_type"}, {"field": "spec.nodes[4].config.k", "message": "unknown key 'k' for recommend; it takes no configuration", "code": "unknown_field"}, {"field": "spec.nodes[5].config.train", "message": "'xxxxxxxxxxxx...xxxxxxxxxxxxx' is not valid: Training documents \"<class>:<text>\" separated by '|' (at least one); a class is 1 to 63 printable ASCII characters without a space, ':' or '|'.", "code": "pattern_mismatch"}, {"field": "spec.nodes[7].config.rate", "message": "must be a decimal number such as 0.5 or 1e3, got '1e-400'", "code": "wrong_type"}]},
  {"name": "required config left out, to be filled at save", "doc": {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "cfg", "description": "", "labels": {}}, "spec": {"nodes": [{"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "gw", "service": "api_gateway"}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "db", "service": "sql", "config": {}}, {"shards": 1, "replicas": 1, "constraints": {"platform": "any"}, "request_bytes": 512, "id": "sec", "service": "ipsec", "config": {"iv": "00000000000000000000000000000000"}}], "edges": [{"from": "gw", "to": "db"}]}}, "message": "valid", "errors": []}
];

describe("validateDag checks config as the API does", () => {
  for (const c of CONFIG_CASES) {
    it(c.name, () => {
      const errors = validateDag(c.doc as SpecDocument, SERVICES, SCHEMAS);
      expect(errors).toEqual(c.errors);
      expect(summaryMessage(errors)).toBe(c.message);
    });
  }
  it("leaves config values to the server until the catalogue has loaded", () => {
    const doc = CONFIG_CASES[1]!.doc as SpecDocument;
    expect(validateDag(doc, SERVICES).some((e) => e.field.includes(".config.") && e.code === "out_of_range")).toBe(false);
  });
  it("names a config key in its node's messages", () => {
    const located = locateErrors(
      [{ field: "spec.nodes[0].config.rate", message: "must be greater than 0, got -1", code: "out_of_range" }],
      ["gw"],
      [],
    );
    expect(located.nodes.get(0)).toEqual(["rate: must be greater than 0, got -1"]);
  });
});
